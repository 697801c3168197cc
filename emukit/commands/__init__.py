"""Command groups of the ``emukit`` CLI, one module each; each exposes ``register(subparsers)``."""

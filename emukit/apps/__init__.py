"""App profiles (page objects) for the apps templates and tasks use; see :mod:`emukit.apps.registry`."""

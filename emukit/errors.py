"""One error hierarchy for emukit; every message names the file, field, device or value at fault."""

from __future__ import annotations


class EmukitError(Exception):
    """Base class of every error emukit raises on purpose."""


class DeviceError(EmukitError):
    """A device could not be reached, started, or did not answer as expected."""


class ConfigError(EmukitError):
    """A template, task, snapshot spec or option is malformed."""

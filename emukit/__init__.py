"""emukit: drive Android emulators over ADB to build and verify data for GUI world models."""

__version__ = "0.1.0"

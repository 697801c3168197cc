"""Provisioning real and hardware-like devices: the pinned APKs and their stand-ins, ``emukit avd create``
and ``emukit avd setup`` (install, grant, onboard, demo mode, base snapshots) and ``emukit doctor``."""

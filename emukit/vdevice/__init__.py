"""The virtual Android device: a process that speaks the device side of ADB, the emulator console and
uiautomator2's JSON-RPC. The rest of emukit never imports this package except to start it as a process."""

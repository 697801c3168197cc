"""The device layer: adb server, virtual device processes, and (later) the driver, lifecycle and snapshots."""

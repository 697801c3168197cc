"""The nightly rebuild on a workstation: config, one night's run, the comparison with the previous good
night, the report, and the systemd timer that starts it."""

"""A memo app from outside emukit (test data): profile, selector table, virtual app and seed section."""

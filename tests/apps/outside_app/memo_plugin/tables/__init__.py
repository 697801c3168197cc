"""The memo app's selector tables (``<package>/<versionCode>.yaml``), found by an ``emukit.app_tables`` entry
point naming this package."""

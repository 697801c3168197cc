"""The virtual device's system services, one module per Android system service it imitates.

:class:`emukit.vdevice.device.VirtualDevice` composes them and keeps its own methods as delegations, so
callers keep using ``device.start_activity(...)``, ``device.apps``, ``device.wall_ms()`` and the rest:

- :mod:`.clock`: :class:`~.clock.SystemClock` (``device.system_clock``), the wall and elapsed-realtime clocks;
- :mod:`.alarms`: :class:`~.alarms.AlarmManager` (``device.alarm_manager``), pending alarms and their delivery;
- :mod:`.broadcasts`: :class:`~.broadcasts.BroadcastQueue` (``device.broadcasts``), manifest receivers;
- :mod:`.packages`: :class:`~.packages.PackageManager` (``device.package_manager``), installed apps,
  versions, runtime permissions and app-ops, installs;
- :mod:`.activities`: :class:`~.activities.ActivityManager` (``device.activity_manager``), processes and the
  back stack;
- :mod:`.clipboard`: :class:`~.clipboard.ClipboardService` (``device.clipboard``);
- :mod:`.notifications`: :class:`~.notifications.NotificationManager` (``device.notification_manager``);
- :mod:`.media`: :class:`~.media.MediaProvider` (``device.media``), shared storage and the media scan.

Each service holds the device and reads ``device.state`` afresh on every call (a snapshot load or a reload
from disk replaces the state object); mutations happen under ``device.lock`` exactly as before the split. A
service calls another service's public operations through the device's methods, so a method replaced on the
device instance is what every caller reaches.
"""

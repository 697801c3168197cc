"""The virtual Files app (DocumentsUI); see :mod:`.app`."""

from emukit.vdevice.apps.files.app import FilesApp

__all__ = ["FilesApp"]

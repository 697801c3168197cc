"""The virtual-app kit: what list/detail/edit apps share, so that a new app is its screens and a small
behaviour module.

* :mod:`.app`: :class:`KitApp`, an :class:`~emukit.vdevice.apps.base.App` whose activities are
  :class:`Screen` objects (one class per real activity) and whose dialogs are overlays kept in the
  activity's state; dispatch of the lifecycle, BACK and the dialog stack is done once here.
* :mod:`.layout`: a screen declared from the real layout XML: a tree of :class:`~.layout.N` nodes naming
  selector-table entries (ids, classes, strings) with their nesting and sizes, inflated into views and bound
  to the app's state by entry name.
* :mod:`.parts`: the toolbar with its action items and overflow menu, RecyclerView rows, the FAB, EditText
  fields (focus, caret, selection handles and the Android 14 floating text toolbar come from the window
  manager's editing for every editable view), confirmation dialogs.
* :mod:`.pickers`: the framework's DatePickerDialog (calendar mode) and TimePickerDialog (clock mode).
* :mod:`.store`: an app's Room/SQLite database at the real path, created with the real schema.
* :mod:`.webview`: web content as Chromium's accessibility tree reports it (a WebView's root web area and one
  node per block), with its layout, scrolling, long-press word selection, the floating toolbar and Copy as HTML;
  :mod:`.markdown`: Markdown as the blocks of such a page. Markor's view mode, Joplin's note body and Chrome's
  pages are built from them.

The pipeline side (driving, probing and seeding a kit app over adb) is in :mod:`emukit.apps.dataspec`.
"""

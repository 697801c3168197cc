"""Retro Music (``code.name.monkey.retromusic``): songs, playing queue, playlists, drag reordering; the
Ordered Collection family's app. The virtual build uses Retro Music's own ids and strings; verified there."""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation
from emukit.device.actions import Element
from emukit.errors import DeviceError

PACKAGE = "code.name.monkey.retromusic"


class MusicProfile(AppProfile):
    package = PACKAGE
    name = "music"
    activity = f"{PACKAGE}.activities.MainActivity"

    # ------------------------------------------------------------------ rows
    def _rows(self) -> list[tuple[Element, dict[str, Element]]]:
        """(title element, {part id: element}) for each visible list row, top to bottom."""
        elements = self.driver.elements()
        titles = [e for e in elements if e.resource_id == self.rid("title")]
        parts = [e for e in elements if e.resource_id in (self.rid("menu"), self.rid("drag_view"))]
        rows = []
        for title in titles:
            top, bottom = title.bounds[1], title.bounds[3]
            mid = (top + bottom) // 2
            found = {p.resource_id.rsplit("/", 1)[1]: p for p in parts if p.bounds[1] <= mid < p.bounds[3]}
            rows.append((title, found))
        return rows

    def _row(self, title: str) -> tuple[Element, dict[str, Element]]:
        for _ in range(6):
            for row in self._rows():
                if row[0].text == title:
                    return row
            self.driver.swipe(540, 1700, 540, 1000, 400)  # scroll the list towards the end
        raise DeviceError(f"{self.driver.serial}: no row titled {title!r}")

    def _row_menu(self, title: str, item: str) -> None:
        _title, parts = self._row(title)
        if "menu" not in parts:
            raise DeviceError(f"{self.driver.serial}: row {title!r} has no menu")
        x, y = parts["menu"].center
        self.driver.tap(x, y)
        self.driver.tap(text=item)

    # ------------------------------------------------------------------ library
    @operation
    def tab(self, name: str) -> None:
        """Songs, Albums, Artists or Playlists."""
        self.driver.tap(description=name)

    @operation
    def add_to_queue(self, title: str) -> None:
        self._row_menu(title, "Add to playing queue")

    @operation
    def play_next(self, title: str) -> None:
        self._row_menu(title, "Play next")

    @operation
    def play(self, title: str) -> None:
        """Tap the song: the queue becomes this list, starting at the song."""
        row, _ = self._row(title)
        self.driver.tap(*row.center)

    @operation
    def add_to_playlist(self, title: str, playlist: str) -> None:
        self._row_menu(title, "Add to playlist")
        self.driver.tap(resourceId="android:id/text1", text=playlist)

    # ------------------------------------------------------------------ playlists
    @operation
    def create_playlist(self, name: str) -> None:
        self.driver.tap(description="Playlists")
        self.driver.tap(description="New playlist")
        self.driver.tap(resourceId=self.rid("actionNewPlaylist"))
        self.driver.type_text(name)
        self.driver.tap(text="Create")

    @operation
    def open_playlist(self, name: str) -> None:
        self.driver.tap(description="Playlists")
        self.driver.tap(resourceId=self.rid("title"), text=name)
        self.driver.element(resourceId=self.rid("toolbar_title"), text=name)

    @operation
    def remove_from_playlist(self, title: str) -> None:
        self._row_menu(title, "Remove from playlist")
        self.driver.tap(resourceId="android:id/button1")

    @operation
    def delete_playlist(self, name: str) -> None:
        self.driver.tap(description="Playlists")
        self._row_menu(name, "Delete")
        self.driver.tap(resourceId="android:id/button1")

    # ------------------------------------------------------------------ player
    @operation
    def open_now_playing(self) -> None:
        self.driver.tap(resourceId=self.rid("miniPlayerTitle"))
        self.driver.element(description="Playing queue")

    @operation
    def open_queue(self) -> None:
        self.driver.tap(description="Playing queue")

    @operation
    def back(self) -> None:
        self.driver.back()

    # ------------------------------------------------------------------ reorder (playlist detail or queue)
    @operation
    def move(self, from_index: int, to_index: int, method: str = "swipe") -> None:
        """Drag the row at ``from_index`` by its handle onto the row at ``to_index`` (visible rows, 0-based);
        ``method``: "swipe" (``input swipe`` with a duration) or "drag" (long-press drag)."""
        rows = self._rows()
        handle = rows[from_index][1].get("drag_view")
        if handle is None:
            raise DeviceError(f"{self.driver.serial}: row {from_index} has no drag handle")
        x1, y1 = handle.center
        y2 = rows[to_index][0].center[1]
        if method == "drag":
            self.driver.drag(x1, y1, x1, y2, 1000, element=handle)
        else:
            self.driver.swipe(x1, y1, x1, y2, 1000)

    def visible_titles(self) -> list[str]:
        """Titles of the visible list rows, top to bottom (an observation helper, not an action)."""
        return [title.text for title, _ in self._rows()]

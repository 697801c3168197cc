"""The memo app's profile and its base snapshot section (``memos:``), on the kit's data spec."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from emukit.apps.base import AppProfile, operation, register_app
from emukit.apps.dataspec import AppDatabase, DbReading, RowsSeed

PACKAGE = "org.example.memo"
DATABASE = AppDatabase(PACKAGE, "memos.db")


class Memo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str


class MemoSeed(RowsSeed):
    key = "memos"
    item = Memo
    database = DATABASE
    table = "memos"
    profile = "memo"

    @classmethod
    def row(cls, item: Any) -> dict[str, Any]:
        return {"title": item.title}


@register_app
class MemoProfile(AppProfile):
    package = PACKAGE
    name = "memo"
    activity = f"{PACKAGE}.MainActivity"
    seed = MemoSeed
    main_screens = ("list",)

    def first_run_screen(self) -> str | None:
        return "list" if self.driver.exists(**self.sel("fab")) else None

    @operation
    def add(self, title: str) -> None:
        """FAB, type the title, Save."""
        self.driver.tap(**self.sel("fab"))
        self.driver.tap(**self.sel("editor_title"))
        self.driver.type_text(title)
        self.driver.tap(**self.sel("save"))
        self.driver.element(**self.sel("fab"))

    def shown(self) -> list[str]:
        """The titles the list shows."""
        return [e.text for e in self.driver.elements() if e.resource_id == self.rid("row_title")]

    def stored(self) -> DbReading:
        return DATABASE.read(self.driver, "SELECT title FROM memos ORDER BY id")

"""Room's schema identity hash, recomputed from the ``CREATE`` statements Room generates for a database.

Room (androidx.room room-compiler, ``androidx.room.vo``) stores in ``room_master_table`` an MD5 over the
database's entities: ``SchemaIdentityKey`` appends each part followed by ``?:?`` and hashes the string; a
database appends its entities' keys sorted case-insensitively (English), an entity its table name, its primary
key (``"<autoGenerate>-[<columns>]"``), its fields (``"<column>-<AFFINITY>-<nonNull>"``) and indices
(``"<unique>-<name>-<columns>"``), each list sorted, and hashes that. This module reads those parts back from the
statements (the form Room's ``createAllTables`` runs them in), so a schema written as SQL gets the hash the real
app's generated code carries. Checked against the hashes of apps whose Room schema was exported
(tests/vdevice/test_app_gallery.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

SEPARATOR = "?:?"
_TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS `(?P<name>[^`]+)` \((?P<body>.*)\)\s*$", re.DOTALL)
_INDEX = re.compile(r"CREATE (?P<unique>UNIQUE )?INDEX IF NOT EXISTS `(?P<name>[^`]+)` ON `(?P<table>[^`]+)` "
                    r"\((?P<cols>[^)]*)\)")
_COLUMN = re.compile(r"`(?P<name>[^`]+)` (?P<type>INTEGER|TEXT|REAL|BLOB)(?P<rest>[^,]*)")
_PK = re.compile(r"PRIMARY KEY\((?P<cols>[^)]*)\)")


def _key(parts: Iterable[str]) -> str:
    return hashlib.md5("".join(p + SEPARATOR for p in parts).encode()).hexdigest()


def _sorted(keys: Iterable[str]) -> list[str]:
    return sorted(keys, key=str.lower)


def _split(body: str) -> list[str]:
    """Top-level comma-separated definitions of a CREATE TABLE body."""
    out, depth, cur = [], 0, ""
    for ch in body:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def identity_hash(statements: Iterable[str]) -> str:
    """The identity hash of the database whose tables and indices ``statements`` create."""
    tables: dict[str, dict] = {}
    for sql in statements:
        sql = sql.strip()
        m = _TABLE.match(sql)
        if m:
            fields, pk = [], ("false", [])
            for part in _split(m["body"]):
                pkm = _PK.match(part)
                if pkm:
                    pk = ("false", [c.strip().strip("`") for c in pkm["cols"].split(",")])
                    continue
                col = _COLUMN.match(part)
                if col is None:
                    continue
                rest = col["rest"]
                fields.append(f"{col['name']}-{col['type']}-{'true' if 'NOT NULL' in rest else 'false'}")
                if "PRIMARY KEY AUTOINCREMENT" in rest:
                    pk = ("true", [col["name"]])
                elif "PRIMARY KEY" in rest:
                    pk = ("false", [col["name"]])
            tables[m["name"]] = {"fields": fields, "pk": pk, "indices": []}
            continue
        m = _INDEX.match(sql)
        if m:
            cols = ",".join(c.strip().strip("`") for c in m["cols"].split(","))
            tables[m["table"]]["indices"].append(f"{'true' if m['unique'] else 'false'}-{m['name']}-{cols}")
    entity_keys = []
    for name, t in tables.items():
        auto, cols = t["pk"]
        entity_keys.append(_key([name, f"{auto}-[{', '.join(cols)}]", *_sorted(t["fields"]),
                                 *_sorted(t["indices"])]))
    return _key(_sorted(entity_keys))

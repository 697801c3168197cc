"""``sqlite3 DBFILE [SQL...]``: the sqlite3 CLI over device database files.

The database path is resolved through ``device.fs``. An authorizer denies ``ATTACH``/``DETACH`` (which also
blocks ``VACUUM INTO``) and the directory pragmas, so SQL can only ever touch the one device file;
extension loading stays disabled.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3

from emukit.vdevice.shell.commands.base import Ctx, command, encode
from emukit.vdevice.shell.commands.fsutil import stamp

_DENIED_PRAGMAS = {"temp_store_directory", "data_store_directory"}
_FLAGS = {"-header": ("header", True), "-noheader": ("header", False), "-json": ("mode", "json"),
          "-line": ("mode", "line"), "-csv": ("mode", "csv"), "-list": ("mode", "list"),
          "-column": ("mode", "column"), "-tabs": ("mode", "tabs"), "-bail": ("bail", True),
          "-batch": ("batch", True), "-readonly": ("readonly", True), "-echo": ("echo", True),
          "-interactive": ("batch", False)}


def authorizer(action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
    """Deny anything that could open another file (ATTACH, VACUUM INTO) or move temp/data dirs."""
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and arg1 and arg1.lower() in _DENIED_PRAGMAS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def fmt_value(value: object, null: str) -> str | bytes:
    if value is None:
        return null
    if isinstance(value, float):
        text = f"{value:.15g}"
        if text in ("inf", "-inf"):
            return "Inf" if text == "inf" else "-Inf"
        mantissa, e, exp = text.partition("e")
        if "." not in mantissa and mantissa not in ("nan",):
            mantissa += ".0"
        return mantissa + (e + exp if e else "")
    if isinstance(value, bytes):
        return value
    return str(value)


class _Cli:
    """State of one sqlite3 invocation (output mode, separator, connection)."""

    def __init__(self, ctx: Ctx, conn: sqlite3.Connection, db_label: str, settings: dict) -> None:
        self.ctx = ctx
        self.conn = conn
        self.db_label = db_label
        self.mode = settings.get("mode", "list")
        self.header = settings.get("header", False)
        self.sep = settings.get("separator")
        self.null = settings.get("nullvalue", "")
        self.bail = settings.get("bail", False)
        self.echo = settings.get("echo", False)
        self.status = 0
        self.quit = False

    # ------------------------------------------------------------------ input
    def run_text(self, text: str) -> None:
        buf = ""
        for line in text.splitlines(keepends=True):
            if self.quit or (self.bail and self.status):
                return
            if not buf.strip() and line.lstrip().startswith("."):
                self.dot(line.strip())
                continue
            buf += line
            buf = self._run_complete(buf)
        if buf.strip() and not self.quit:
            if sqlite3.complete_statement(buf + ";"):
                self.execute(buf)
            else:
                self.error(f"Error: incomplete SQL: {buf.strip()}")

    def _run_complete(self, buf: str) -> str:
        start = 0
        idx = buf.find(";", start)
        while idx >= 0:
            chunk = buf[:idx + 1]
            if sqlite3.complete_statement(chunk):
                self.execute(chunk)
                if self.bail and self.status:
                    return ""
                buf = buf[idx + 1:]
                idx = buf.find(";")
                continue
            idx = buf.find(";", idx + 1)
        return buf

    def error(self, msg: str) -> None:
        self.ctx.ewrite(msg + "\n")
        self.status = 1

    # ------------------------------------------------------------------ SQL
    def execute(self, stmt: str) -> None:
        if not stmt.strip().rstrip(";").strip():
            return
        if self.echo:
            self.ctx.write(stmt.strip() + "\n")
        try:
            cur = self.conn.execute(stmt)
            rows = cur.fetchall()
        except sqlite3.IntegrityError as exc:
            self.error(f"Error: stepping, {exc} (19)")
            return
        except (sqlite3.Error, ValueError) as exc:
            self.error(f"Error: in prepare, {exc}")
            return
        if cur.description:
            self.output([d[0] for d in cur.description], rows)

    def output(self, cols: list[str], rows: list[tuple]) -> None:
        write = self.ctx.write
        mode = self.mode
        if mode == "json":
            if rows:
                items = [json.dumps({c: (v.hex() if isinstance(v, bytes) else v) for c, v in zip(cols, r)},
                                    separators=(",", ":"), ensure_ascii=False) for r in rows]
                write("[" + ",\n".join(items) + "]\n")
            return
        if mode == "line":
            width = max(len(c) for c in cols)
            for i, row in enumerate(rows):
                if i:
                    write("\n")
                for c, v in zip(cols, row):
                    write(f"{c:>{width}} = ".encode() + encode(fmt_value(v, self.null)) + b"\n")
            return
        if mode == "csv":
            buf = io.StringIO()
            writer = csv.writer(buf, delimiter=self.sep or ",", lineterminator="\n")
            if self.header:
                writer.writerow(cols)
            for row in rows:
                writer.writerow(["" if v is None else (v.decode("latin-1") if isinstance(v, bytes) else
                                                       fmt_value(v, "")) for v in row])
            write(buf.getvalue())
            return
        if mode == "column":
            text_rows = [[fmt_value(v, self.null) for v in r] for r in rows]
            text_rows = [[v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in r] for r in text_rows]
            widths = [max([len(c)] + [len(r[i]) for r in text_rows]) for i, c in enumerate(cols)]
            if self.header:
                write("  ".join(f"{c:<{w}}" for c, w in zip(cols, widths)).rstrip() + "\n")
                write("  ".join("-" * w for w in widths) + "\n")
            for r in text_rows:
                write("  ".join(f"{v:<{w}}" for v, w in zip(r, widths)).rstrip() + "\n")
            return
        sep = encode(self.sep if self.sep is not None else ("\t" if mode == "tabs" else "|"))
        if self.header:
            write(sep.join(encode(c) for c in cols) + b"\n")
        for row in rows:
            write(sep.join(encode(fmt_value(v, self.null)) for v in row) + b"\n")

    # ------------------------------------------------------------------ dot commands
    def dot(self, line: str) -> None:
        parts = line.split()
        name, args = parts[0], [a.strip("'\"") for a in parts[1:]]
        try:
            if name in (".quit", ".exit"):
                self.quit = True
            elif name == ".tables":
                self._tables(args[0] if args else "%")
            elif name == ".schema":
                sql = ("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name LIKE ? "
                       "AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
                for (text,) in self.conn.execute(sql, (args[0] if args else "%",)):
                    self.ctx.write(text + ";\n")
            elif name in (".indexes", ".indices"):
                sql = "SELECT name FROM sqlite_master WHERE type='index' AND tbl_name LIKE ? ORDER BY name"
                for (text,) in self.conn.execute(sql, (args[0] if args else "%",)):
                    self.ctx.write(text + "\n")
            elif name in (".headers", ".header"):
                self.header = bool(args) and args[0].lower() in ("on", "1", "yes", "true")
            elif name == ".mode" and args:
                self.mode = args[0]
                if self.mode == "csv":
                    self.sep = ","
                elif self.mode == "tabs":
                    self.sep = "\t"
            elif name == ".separator" and args:
                self.sep = args[0].encode().decode("unicode_escape")
            elif name == ".nullvalue" and args:
                self.null = args[0]
            elif name == ".dump":
                self.ctx.write("".join(line + "\n" for line in self.conn.iterdump()))
            elif name == ".databases":
                self.ctx.write(f"main: {self.db_label} r/w\n")
            elif name in (".bail",):
                self.bail = bool(args) and args[0].lower() in ("on", "1")
            else:
                self.error(f'Error: unknown command or invalid arguments:  "{name[1:]}". Enter ".help" for help')
        except sqlite3.Error as exc:
            self.error(f"Error: {exc}")

    def _tables(self, pattern: str) -> None:
        names = [r[0] for r in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' "
            "AND name LIKE ? ORDER BY 1", (pattern,))]
        if not names:
            return
        width = max(len(n) for n in names) + 2
        per_row = max(1, 80 // width)
        rows = (len(names) + per_row - 1) // per_row
        for r in range(rows):
            line = "".join(f"{names[i]:<{width}}" for i in range(r, len(names), rows))
            self.ctx.write(line.rstrip() + "\n")


@command("sqlite3")
def sqlite3_cmd(ctx: Ctx) -> int:
    args = list(ctx.args)
    settings: dict = {}
    cmds: list[str] = []
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        key = arg[1:] if arg.startswith("--") else arg
        if key in _FLAGS:
            settings[_FLAGS[key][0]] = _FLAGS[key][1]
        elif key in ("-separator", "-nullvalue", "-cmd", "-newline") and args:
            value = args.pop(0)
            if key == "-cmd":
                cmds.append(value)
            else:
                settings[key[1:]] = value
        elif key == "-version":
            ctx.write(f"{sqlite3.sqlite_version} 2023-01-01 00:00:00 emukit\n")
            return 0
        elif arg.startswith("-") and not operands:
            return ctx.fail(f"Error: unknown option: {arg}\nUse -help for a list of options.")
        else:
            operands.append(arg)
            operands.extend(args)
            break
    db = operands[0] if operands else ":memory:"
    fs = ctx.fs
    existed = True
    if db == ":memory:":
        target = ":memory:"
        label = ""
    else:
        try:
            host = fs.host(db, ctx.cwd)
        except OSError:
            return ctx.fail(f'Error: unable to open database "{db}": unable to open database file')
        existed = host.exists()
        if host.is_dir() or (not existed and not host.parent.is_dir()):
            ctx.ewrite(f'Error: unable to open database "{db}": unable to open database file\n')
            return 1
        target = str(host)
        label = fs.normalize(db, ctx.cwd)
    try:
        if settings.get("readonly") and target != ":memory:":
            conn = sqlite3.connect(host.as_uri() + "?mode=ro", uri=True, isolation_level=None,
                                   check_same_thread=False)
        else:
            conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        return ctx.fail(f'Error: unable to open database "{db}": {exc}')
    conn.set_authorizer(authorizer)
    cli = _Cli(ctx, conn, label, settings)
    try:
        for text in cmds:
            cli.run_text(text)
        sql_args = operands[1:]
        if sql_args:
            for text in sql_args:
                if cli.quit or (cli.bail and cli.status):
                    break
                cli.run_text(text)
        else:
            cli.run_text(ctx.read_stdin().decode("utf-8", "surrogateescape"))
        changed = conn.total_changes > 0
    finally:
        conn.close()
    if target != ":memory:" and (changed or not existed) and host.exists():
        stamp(ctx.device, host)
        if not existed:
            stamp(ctx.device, host.parent)
    return cli.status

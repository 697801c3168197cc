"""The emulator console (telnet-style text protocol on the port just below the adb port).

Like the real emulator's: a banner asking for ``auth <token>`` (token from
``$HOME/.emulator_console_auth_token``, created if missing; an empty file disables auth), then one command
per line answered with ``OK`` or ``KO: <message>``, lines ending in CRLF. Commands: ``help``, ``ping``,
``avd name|status|snapshot list|save|load|delete``, ``kill``, ``quit``/``exit``, and the virtual device's
own ``fault`` family (fault injection for reliability tests).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import secrets
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from emukit.vdevice.snapshots import SnapshotError

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

log = logging.getLogger(__name__)

HELP = """Android console commands:

    help|h|?         print a list of commands
    ping             check if the emulator is alive
    avd              control virtual device execution (name, status, snapshot list|save|load|delete)
    fault            inject faults: status | clear | drop | offline SECONDS | delay MS | crash | corrupt N
    sms              SMS related commands (send <phonenumber> <text message>)
    kill             kill the emulator instance
    quit|exit        quit control session
"""


def auth_token_path() -> Path:
    return Path(os.environ.get("HOME", "~")).expanduser() / ".emulator_console_auth_token"


def load_or_create_token() -> str:
    """The console token; created like the emulator does when the file is missing."""
    path = auth_token_path()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        token = secrets.token_urlsafe(12)[:16]
        path.write_text(token)
        os.chmod(path, 0o600)
        return token
    return path.read_text().strip()


class ConsoleSession:
    """One console client connection."""

    def __init__(self, sock: socket.socket, device: VirtualDevice, on_kill: Callable[[], None],
                 on_fault: Callable[[str, list[str]], str]) -> None:
        self.sock = sock
        self.device = device
        self.on_kill = on_kill
        self.on_fault = on_fault
        self.token = load_or_create_token()
        self.authed = not self.token

    def _send(self, text: str) -> None:
        self.sock.sendall(text.replace("\r\n", "\n").replace("\n", "\r\n").encode())

    def serve(self) -> None:
        with self.sock:
            if self.authed:
                self._send("Android Console: type 'help' for a list of commands\nOK\n")
            else:
                self._send("Android Console: Authentication required\n"
                           "Android Console: type 'auth <auth_token>' to authenticate\n"
                           "Android Console: you can find your <auth_token> in \n"
                           f"'{auth_token_path()}'\nOK\n")
            buf = b""
            while True:
                try:
                    chunk = self.sock.recv(4096)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    if not self._handle(line.decode("utf-8", "replace").strip()):
                        return

    def _handle(self, line: str) -> bool:
        """Run one command line; False ends the session."""
        if not line:
            return True
        words = line.split()
        cmd, args = words[0].lower(), words[1:]
        self._line = line
        if cmd == "auth":
            if args and secrets.compare_digest(args[0], self.token or ""):
                self.authed = True
                self._send("Android Console: type 'help' for a list of commands\nOK\n")
            else:
                self._send("KO: authentication token does not match ~/.emulator_console_auth_token\n")
            return True
        if cmd in ("quit", "exit"):
            return False
        if not self.authed:
            if cmd in ("help", "h", "?"):
                self._send("Android console commands:\n\n    help|h|?\n    auth\n    quit|exit\n\n"
                           "try 'help <command>' for command-specific help\nOK\n")
            else:
                self._send("KO: unknown command, try 'help'\n")
            return True
        try:
            with self.device.ui_changing():
                reply = self._dispatch(cmd, args)
        except SnapshotError as exc:
            reply = f"KO: {exc}\n"
        except Exception as exc:  # report, never crash the console
            log.exception("console command failed: %s", line)
            reply = f"KO: {exc}\n"
        if reply is None:  # kill
            return False
        self._send(reply)
        return True

    def _dispatch(self, cmd: str, args: list[str]) -> str | None:
        dev = self.device
        if cmd in ("help", "h", "?"):
            return HELP + "\nOK\n"
        if cmd == "ping":
            return "I am alive!\nOK\n"
        if cmd == "kill":
            self._send("OK: killing emulator, bye bye\n")
            threading.Thread(target=self.on_kill, daemon=True).start()
            return None
        if cmd == "fault":
            return self.on_fault(args[0] if args else "status", args[1:]) + "\nOK\n"
        if cmd == "sms":
            return self._sms(self._line)
        if cmd != "avd":
            return "KO: unknown command, try 'help'\n"
        sub = args[0].lower() if args else ""
        if sub == "name":
            return f"{dev.avd_name}\nOK\n"
        if sub == "status":
            return "virtual device is running\nOK\n"
        if sub == "snapshot":
            return self._snapshot(args[1:])
        return "KO: bad sub-command, try 'help avd'\n"

    def _sms(self, line: str) -> str:
        """``sms send <phonenumber> <text message>``: an incoming SMS from that number (the emulator's
        ``android_console_sms_send``: the number is ``[+](0-9)*``, the rest of the line is the text; replies
        ``KO: missing argument, try 'sms send <phonenumber> <text message>'`` and ``KO: bad phone number format,
        must be [+](0-9)*``). The message reaches the Telephony provider and the default SMS app
        (:meth:`emukit.vdevice.services.telephony.Telephony.deliver`)."""
        rest = line.strip().split(None, 1)[1] if len(line.split()) > 1 else ""
        sub, _, rest = rest.partition(" ")
        if sub.lower() != "send":
            return "KO: bad sub-command, try 'help sms'\n"
        number, space, text = rest.lstrip().partition(" ")
        if not space:
            return "KO: missing argument, try 'sms send <phonenumber> <text message>'\n"
        if not re.fullmatch(r"\+?[0-9]*", number):
            return "KO: bad phone number format, must be [+](0-9)*\n"
        self.device.telephony.deliver(number, text)
        return "OK\n"

    def _snapshot(self, args: list[str]) -> str:
        store = self.device.snapshots
        op = args[0].lower() if args else ""
        if op == "list":
            rows = ["List of snapshots present on all disks:",
                    "ID        TAG                 VM SIZE                DATE       VM CLOCK"]
            for i, info in enumerate(store.list(), 1):
                date = dt.datetime.fromtimestamp(info.saved_wall_ms / 1000, dt.UTC)
                clock = dt.timedelta(milliseconds=info.vm_clock_ms)
                hours, rem = divmod(int(clock.total_seconds()), 3600)
                rows.append(f"{'--':<10}{info.name:<20}{info.size // (1 << 20):>7}M "
                            f"{date:%Y-%m-%d %H:%M:%S}   {hours:02d}:{rem // 60:02d}:{rem % 60:02d}."
                            f"{info.vm_clock_ms % 1000:03d}")
            return "\n".join(rows) + "\nOK\n"
        if op in ("save", "load", "delete") and len(args) < 2:
            return f"KO: missing snapshot name for 'avd snapshot {op}'\n"
        if op == "save":
            store.save(args[1])
            return "OK\n"
        if op == "load":
            store.load(args[1])
            return "OK\n"
        if op in ("delete", "del"):
            store.delete(args[1])
            return "OK\n"
        return "KO: bad sub-command, try 'help avd snapshot'\n"

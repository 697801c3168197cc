"""Processes: ps, pidof, kill. The table is a fixed system core, one process per running app (pids from
``device.state.pids``), the uiautomator2 server while one listens, adbd, the shell itself and the shell's
background job (``cmd &``, pid ``$!``) when a command registered one (:func:`start_job`).

``kill`` follows Linux permissions: root may signal anything, the shell user the processes running as
``shell`` (the same uid): its own background jobs and the ``app_process`` of the uiautomator2 server it
started; an app's process runs as the app's uid, so only root may kill it."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command, getopt
from emukit.vdevice.shell.commands.fsutil import app_uid, id_name

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.shell.interp import Shell


# ------------------------------------------------------------------------------------------ processes
@dataclass
class Proc:
    user: str
    pid: int
    ppid: int
    name: str
    rss: int = 98304
    vsz: int = 14529152
    wchan: str = "do_epoll_wait"
    state: str = "S"


SHELL_PID = 4321


ADBD_PID = 410


ZYGOTE_PID = 300


U2_SERVER_PID = 3900  # ``app_process`` running com.wetest.uia2.Main


SIGNALS = {"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8, "KILL": 9,
           "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15}


@dataclass
class Job:
    """A command the shell runs in the background (``cmd &``); ``on_signal(name)`` is called by ``kill``."""

    pid: int
    name: str
    on_signal: Callable[[str], None]


_JOBS: weakref.WeakKeyDictionary[Shell, dict[int, Job]] = weakref.WeakKeyDictionary()


def start_job(ctx: Ctx, name: str, on_signal: Callable[[str], None]) -> int:
    """Register the background command of ``ctx`` as a process of its shell; returns its pid (``$!``)."""
    pid = SHELL_PID + 1
    _JOBS.setdefault(ctx.shell, {})[pid] = Job(pid, name, on_signal)
    return pid


def end_job(ctx: Ctx, pid: int) -> None:
    _JOBS.get(ctx.shell, {}).pop(pid, None)


def pid_of(device: VirtualDevice, package: str) -> int:
    """The app's pid; a process started before pids were tracked gets a stable fallback number."""
    pid = device.state.pids.get(package)
    if pid is None:
        pid = 1100 + (sorted(device.apps).index(package) if package in device.apps else 99)
    return pid


def process_table(ctx: Ctx) -> list[Proc]:
    """The device's processes: a fixed system core, one per running app, adbd and this shell."""
    device = ctx.device
    root = ctx.rooted
    procs = [Proc("root", 1, 0, "init", 12096, 10939588),
             Proc("root", 2, 0, "[kthreadd]", 0, 0, "kthreadd"),
             Proc("logd", 170, 1, "logd", 8192, 10944880),
             Proc("system", 180, 1, "servicemanager", 4096, 10902344, "binder_ioctl"),
             Proc("root", ZYGOTE_PID, 1, "zygote64", 102400, 14527424, "do_sys_poll"),
             Proc("system", 520, ZYGOTE_PID, "system_server", 256000, 16000000),
             Proc("root" if device.state.rooted else "shell", ADBD_PID, 1, "adbd", 8192, 10911364)]
    for pkg in device.state.running:
        procs.append(Proc(id_name(device, app_uid(device, pkg)), pid_of(device, pkg), ZYGOTE_PID, pkg))
    if getattr(device, "u2_ports", None):
        procs.append(Proc("shell", U2_SERVER_PID, ADBD_PID, "app_process", 90000, 13000000))
    user = "root" if root else "shell"
    procs.append(Proc(user, SHELL_PID, ADBD_PID, "sh", 2048, 10865468, "do_wait"))
    jobs = _JOBS.get(ctx.shell, {})
    for job in jobs.values():
        procs.append(Proc(user, job.pid, SHELL_PID, job.name, 4096, 10900000))
    own = SHELL_PID + 1 + len(jobs)  # the ps (or other command) reading the table
    procs.append(Proc(user, own, SHELL_PID, "ps", 2048, 10865468, "0", "R"))
    return sorted(procs, key=lambda p: p.pid)


_PS_COLUMNS = {"USER": lambda p: p.user, "PID": lambda p: str(p.pid), "PPID": lambda p: str(p.ppid),
               "VSZ": lambda p: str(p.vsz), "RSS": lambda p: str(p.rss), "WCHAN": lambda p: p.wchan,
               "ADDR": lambda p: "0", "S": lambda p: p.state, "NAME": lambda p: p.name,
               "CMD": lambda p: p.name, "ARGS": lambda p: p.name, "CMDLINE": lambda p: p.name,
               "COMM": lambda p: p.name, "UID": lambda p: p.user}


@command("ps")
def ps(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "AeflTwZo:p:u:", multi="o")
    procs = process_table(ctx)
    if "p" in opts:
        wanted = {int(x) for x in opts["p"].split(",") if x.isdigit()}
        procs = [p for p in procs if p.pid in wanted]
    names = [o for o in operands if not o.isdigit()]
    pids = {int(o) for o in operands if o.isdigit()}
    if names or pids:
        procs = [p for p in procs if p.name in names or p.pid in pids]
    if "o" in opts:
        cols = [c.strip().upper() for spec in opts["o"] for c in spec.split(",") if c.strip()]
        bad = [c for c in cols if c.split("=")[0] not in _PS_COLUMNS]
        if bad:
            raise UsageError(f"bad -o {bad[0]}")
        rows = [[c.split("=")[0] if "=" not in c else c.split("=", 1)[1] for c in cols]]
        rows += [[_PS_COLUMNS[c.split("=")[0]](p) for c in cols] for p in procs]
        widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
        for r in rows:
            ctx.write(" ".join(v.rjust(w) if v.isdigit() else v.ljust(w) for v, w in zip(r, widths)).rstrip() + "\n")
        return 0
    ctx.write(f"{'USER':<10} {'PID':>5} {'PPID':>5} {'VSZ':>10} {'RSS':>6} {'WCHAN':<16} {'ADDR':>4} S NAME\n")
    for p in procs:
        ctx.write(f"{p.user:<10} {p.pid:>5} {p.ppid:>5} {p.vsz:>10} {p.rss:>6} {p.wchan:<16} {0:>4} "
                  f"{p.state} {p.name}\n")
    return 0


@command("pidof")
def pidof(ctx: Ctx) -> int:
    opts, names = getopt(ctx, ctx.args, "so:")
    pids = [str(p.pid) for p in process_table(ctx) if p.name in names and p.name != "ps"]
    if not pids:
        return 1
    ctx.write(" ".join(pids[:1] if opts.get("s") else pids) + "\n")
    return 0


def _signal(args: list[str]) -> tuple[str, list[str]]:
    """Split ``kill``'s signal option (``-9``, ``-KILL``, ``-SIGINT``, ``-s INT``) from its operands."""
    sig, rest = "TERM", []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-s" and i + 1 < len(args):
            sig, i = args[i + 1], i + 2
            continue
        if arg.startswith("-") and len(arg) > 1 and arg != "-l" and (arg[1:].isdigit() or arg[1:].isupper()):
            sig = arg[1:]
        else:
            rest.append(arg)
        i += 1
    sig = sig.upper().removeprefix("SIG")
    if sig.isdigit():
        sig = next((name for name, num in SIGNALS.items() if num == int(sig)), sig)
    return sig, rest


@command("kill", "killall", "pkill")
def kill(ctx: Ctx) -> int:
    sig, args = _signal(list(ctx.args))
    if "-l" in args:
        ctx.write(" ".join(SIGNALS) + "\n")
        return 0
    if sig not in SIGNALS and sig != "0":
        return ctx.fail(f"unknown signal '{sig}'")
    if not args:
        return ctx.fail("Needs 1 argument")
    procs = process_table(ctx)
    jobs = _JOBS.get(ctx.shell, {})
    status = 0
    for arg in args:
        if ctx.name == "kill":
            matches = [p for p in procs if arg.isdigit() and p.pid == int(arg)]
        else:
            matches = [p for p in procs if p.name == arg]
        if not matches:
            ctx.error(f"{'pid ' if ctx.name == 'kill' else ''}{arg}: No such process")
            status = 1
            continue
        for proc in matches:
            permitted = ctx.rooted or proc.user == "shell"
            if sig == "0":  # kill -0: only asks whether the process exists and may be signalled
                if not permitted:
                    ctx.error(f"{'pid ' if ctx.name == 'kill' else ''}{arg}: Operation not permitted")
                    status = 1
                continue
            if proc.name in ctx.device.apps and permitted:
                ctx.device.force_stop(proc.name)
            elif proc.pid in jobs and permitted:
                job = jobs.pop(proc.pid)
                job.on_signal(sig)
            elif proc.pid == U2_SERVER_PID and permitted:
                with ctx.device.lock:  # the server dies: its port stops answering, its launch command ends
                    ctx.device.u2_ports.clear()
            elif not (permitted and (proc.pid == SHELL_PID or proc.name == "ps")):
                ctx.error(f"{'pid ' if ctx.name == 'kill' else ''}{arg}: Operation not permitted")
                status = 1
    return status

"""System commands: getprop, setprop, settings, id, whoami, uname, hostname, log, logcat, getenforce,
setenforce, df, mount, uptime, ip, ifconfig, svc."""

from __future__ import annotations

from emukit.vdevice.shell.commands.base import Ctx, command, getopt
from emukit.vdevice.shell.commands.fsutil import fmt_time
from emukit.vdevice.shell.commands.listing import human

KERNEL_RELEASE = "6.1.23-android14-4-00257-g7e35917775b8-ab9964412"
KERNEL_VERSION = "#1 SMP PREEMPT Mon Apr 17 20:50:58 UTC 2023"
GROUPS = ("1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),"
          "1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),"
          "3011(uhid),3012(readtracefs)")
NAMESPACES = ("global", "system", "secure")


# ------------------------------------------------------------------------------------------ props
@command("getprop")
def getprop(ctx: Ctx) -> int:
    props = ctx.device.state.props
    args = [a for a in ctx.args if not a.startswith("-")]
    if not args:
        ctx.write("".join(f"[{k}]: [{props[k]}]\n" for k in sorted(props)))
        return 0
    value = props.get(args[0])
    ctx.write((value if value is not None else (args[1] if len(args) > 1 else "")) + "\n")
    return 0


@command("setprop")
def setprop(ctx: Ctx) -> int:
    if len(ctx.args) != 2:
        return ctx.fail("usage: setprop NAME VALUE")
    name, value = ctx.args
    props = ctx.device.state.props
    if name.startswith("ro.") and name in props:
        ctx.ewrite(f"Failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.\n")
        return 1
    props[name] = value
    return 0


@command("settings")
def settings(ctx: Ctx) -> int:
    args = list(ctx.args)
    while args and args[0] in ("--user", "--lineage"):
        del args[:2]
    if not args:
        return ctx.fail("usage: settings [--user <USER_ID>] get|put|delete|list|reset NAMESPACE [KEY [VALUE]]")
    verb = args.pop(0)
    if not args or args[0] not in NAMESPACES:
        ctx.ewrite(f"Invalid namespace '{args[0] if args else ''}'\n")
        return 255
    table = ctx.device.state.settings.setdefault(args.pop(0), {})
    if verb == "list":
        ctx.write("".join(f"{k}={table[k]}\n" for k in sorted(table)))
        return 0
    if verb == "reset":
        return 0
    if not args:
        ctx.ewrite("Invalid arguments: missing key\n")
        return 255
    key = args.pop(0)
    if verb == "get":
        ctx.write(table.get(key, "null") + "\n")
    elif verb == "put":
        if not args:
            ctx.ewrite("Invalid arguments: missing value\n")
            return 255
        table[key] = args[0]
    elif verb == "delete":
        ctx.write(f"Deleted {1 if table.pop(key, None) is not None else 0} rows\n")
    else:
        ctx.ewrite(f"Invalid command: {verb}\n")
        return 255
    return 0


# ------------------------------------------------------------------------------------------ identity
@command("id")
def id_(ctx: Ctx) -> int:
    opts, _ = getopt(ctx, ctx.args, "ugGnrZ")
    root = ctx.rooted
    uid, name = (0, "root") if root else (2000, "shell")
    if opts.get("u") or opts.get("g"):
        ctx.write((name if opts.get("n") else str(uid)) + "\n")
        return 0
    if opts.get("G"):
        ctx.write(" ".join(g.split("(")[0 if not opts.get("n") else 1].rstrip(")")
                           for g in (f"{uid}({name})," + GROUPS).split(",")) + "\n")
        return 0
    if opts.get("Z"):
        ctx.write(f"u:r:{'su' if root else 'shell'}:s0\n")
        return 0
    ctx.write(f"uid={uid}({name}) gid={uid}({name}) groups={uid}({name}),{GROUPS} "
              f"context=u:r:{'su' if root else 'shell'}:s0\n")
    return 0


@command("whoami")
def whoami(ctx: Ctx) -> int:
    ctx.write(("root" if ctx.rooted else "shell") + "\n")
    return 0


def _machine(ctx: Ctx) -> str:
    abi = ctx.device.state.props.get("ro.product.cpu.abi", "x86_64")
    return {"arm64-v8a": "aarch64", "armeabi-v7a": "armv7l", "x86": "i686"}.get(abi, abi)


@command("uname")
def uname(ctx: Ctx) -> int:
    opts, _ = getopt(ctx, ctx.args, "asnrvmpio")
    fields = [("s", "Linux"), ("n", "localhost"), ("r", KERNEL_RELEASE), ("v", KERNEL_VERSION),
              ("m", _machine(ctx)), ("o", "Toybox")]
    if opts.get("a"):
        chosen = [v for _, v in fields]
    else:
        chosen = [v for k, v in fields if opts.get(k)] or ["Linux"]
        if opts.get("p") or opts.get("i"):
            chosen.append(_machine(ctx))
    ctx.write(" ".join(chosen) + "\n")
    return 0


@command("hostname")
def hostname(ctx: Ctx) -> int:
    ctx.write("localhost\n")
    return 0


# ------------------------------------------------------------------------------------------ selinux (log and logcat: logcat.py)
@command("getenforce")
def getenforce(ctx: Ctx) -> int:
    ctx.write("Enforcing\n")
    return 0


@command("setenforce")
def setenforce(ctx: Ctx) -> int:
    if not ctx.args:
        return ctx.fail("Needs 1 argument")
    if not ctx.rooted:
        return ctx.fail(f"Couldn't set enforcing status to '{ctx.args[0]}': Permission denied")
    return 0


# ------------------------------------------------------------------------------------------ storage
_MOUNTS = [("/dev/block/dm-0", "/", "ext4", 6082212, 5880684), ("tmpfs", "/dev", "tmpfs", 2013028, 1056),
           ("tmpfs", "/mnt", "tmpfs", 2013028, 0), ("/dev/block/vde1", "/vendor", "ext4", 225536, 224952),
           ("/dev/block/dm-4", "/data", "f2fs", 6102624, 1846380),
           ("/dev/fuse", "/storage/emulated", "fuse", 6102624, 1846380)]


@command("df")
def df(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "hkPat:")
    rows = list(_MOUNTS)
    if paths:
        chosen = []
        for path in paths:
            try:
                dev = ctx.fs.resolve(path, ctx.cwd).device_path
            except OSError as exc:
                ctx.oserror(path, exc)
                return 1
            best = max((m for m in rows if dev == m[1] or dev.startswith(m[1].rstrip("/") + "/")),
                       key=lambda m: len(m[1]))
            chosen.append(best)
        rows = chosen
    if opts.get("h"):
        ctx.write("Filesystem        Size  Used Avail Use% Mounted on\n")
        for src, mnt, _, size, used in rows:
            ctx.write(f"{src:<16} {human(size * 1024):>5} {human(used * 1024):>5} "
                      f"{human((size - used) * 1024):>5} {(used * 100 + size - 1) // size:>3}% {mnt}\n")
        return 0
    ctx.write("Filesystem      1K-blocks    Used Available Use% Mounted on\n")
    for src, mnt, _, size, used in rows:
        ctx.write(f"{src:<15} {size:>9} {used:>7} {size - used:>9} {(used * 100 + size - 1) // size:>3}% {mnt}\n")
    return 0


@command("mount")
def mount(ctx: Ctx) -> int:
    if ctx.args:
        return ctx.fail("Permission denied") if not ctx.rooted else 0
    for src, mnt, kind, _, _ in _MOUNTS:
        flags = "rw,seclabel,nosuid,nodev,noatime" if mnt not in ("/", "/vendor") else "ro,seclabel,relatime"
        ctx.write(f"{src} on {mnt} type {kind} ({flags})\n")
    return 0


@command("uptime")
def uptime(ctx: Ctx) -> int:
    up = ctx.device.elapsed_ms() // 1000
    days, rest = divmod(up, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    text = f"{days} day{'s' if days != 1 else ''}, " if days else ""
    text += f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min"
    now = fmt_time(ctx.device, ctx.device.wall_ms() / 1000, "%H:%M:%S")
    if "-s" in ctx.args:
        ctx.write(fmt_time(ctx.device, (ctx.device.wall_ms() - ctx.device.elapsed_ms()) / 1000,
                           "%Y-%m-%d %H:%M:%S") + "\n")
        return 0
    ctx.write(f" {now} up {text},  0 users,  load average: 0.00, 0.00, 0.00\n")
    return 0


# ------------------------------------------------------------------------------------------ network
_WLAN = ("wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
         "    link/ether 02:15:b2:00:00:00 brd ff:ff:ff:ff:ff:ff\n"
         "    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0\n"
         "       valid_lft forever preferred_lft forever\n")
_LO = ("lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n"
       "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
       "    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n")


@command("ip")
def ip(ctx: Ctx) -> int:
    args = [a for a in ctx.args if not a.startswith("-")]
    obj = args[0] if args else ""
    if obj in ("addr", "address", "a", "link", "l"):
        dev = args[args.index("dev") + 1] if "dev" in args and args.index("dev") + 1 < len(args) else None
        if dev not in (None, "wlan0", "lo"):
            ctx.ewrite(f'Device "{dev}" does not exist.\n')
            return 1
        if dev in (None, "lo"):
            ctx.write("1: " + _LO)
        if dev in (None, "wlan0"):
            ctx.write("2: " + _WLAN)
        return 0
    if obj in ("route", "r"):
        ctx.write("10.0.2.0/24 dev wlan0 proto kernel scope link src 10.0.2.16\n")
        return 0
    return ctx.fail(f'Object "{obj}" is unknown, try "ip help".', 255)


@command("ifconfig")
def ifconfig(ctx: Ctx) -> int:
    dev = ctx.args[0] if ctx.args else None
    blocks = {"wlan0": "wlan0     Link encap:Ethernet  HWaddr 02:15:b2:00:00:00\n"
                       "          inet addr:10.0.2.16  Bcast:10.0.2.255  Mask:255.255.255.0\n"
                       "          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n\n",
              "lo": "lo        Link encap:Local Loopback\n          inet addr:127.0.0.1  Mask:255.0.0.0\n"
                    "          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n\n"}
    if dev is not None and dev not in blocks:
        return ctx.fail(f"{dev}: No such device")
    ctx.write("".join(v for k, v in blocks.items() if dev in (None, k)))
    return 0


@command("svc")
def svc(ctx: Ctx) -> int:
    """``svc wifi|data|power|usb|bluetooth ...``: accepted, nothing modelled."""
    if not ctx.args:
        ctx.write("Available commands:\n    help\n    power\n    data\n    wifi\n    usb\n    nfc\n    bluetooth\n")
    return 0


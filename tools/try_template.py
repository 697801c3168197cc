"""Run templates on a fresh virtual device and print each attempt's result (a template author's tool).

    python tools/try_template.py copy_direct,move_direct [PAIRS_PER_TEMPLATE]
"""
import os
import sys
import tempfile
import time

home = tempfile.mkdtemp(prefix="emk-")
os.environ["HOME"] = home
from emukit.device.adbserver import AdbServer, free_port

port = free_port(); os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
from pathlib import Path

from emukit.builder.pair import PairContext, Rejected, build_pair
from emukit.device.virtual import VirtualDeviceProcess, free_adb_ports
from emukit.templates import load_templates
from emukit.templates.sampler import rng_for, sample_params
from emukit.workers import DeviceContext

srv = AdbServer(port, home=Path(home)); srv.start()
p = VirtualDeviceProcess(free_adb_ports(1, start=30001 + 2 * (os.getpid() % 4000))[0], Path(home) / "dev", srv); s = p.start()
names = sys.argv[1].split(",")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1
try:
    d = DeviceContext(s, adb_port=port, data_dir=Path(home) / "data", default_timeout=5)
    for t in load_templates(names=names):
        d.ensure_snapshot(t.base_snapshot)
        for slot in range(n):
            ctx = PairContext(t, sample_params(t, rng_for(t.name, 0, slot, 0)), 0, slot, 0)
            t0 = time.perf_counter()
            try:
                rec, arts = build_pair(d, ctx)
                print("OK", t.name, ctx.params, f"{time.perf_counter()-t0:.2f}s", rec.branches["A"].outcome, rec.branches["B"].outcome,
                      {k: round(v) for k, v in rec.branches["A"].timings_ms.items()}, len(rec.branches["A"].history))
            except Rejected as e:
                print("REJ", t.name, f"{time.perf_counter()-t0:.2f}s", e.reason, e.detail[:1500])
finally:
    d.close(); p.stop(); srv.kill()

"""Persistent Artifact: does the target exist at its source and destination? (``stat`` over adb)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes.base import CliOption, FamilyProbe, ProbeResult, ProbeUsageError, register_probe

_STAT_FORMAT = "%n|%s|%Y|%F"


def stat_paths(driver: Driver, paths: list[str], sha256: bool = False) -> dict[str, dict[str, object] | None]:
    """One shell call: path -> {size, mtime, type[, sha256]} or None when the path does not exist."""
    script = []
    for path in paths:
        q = shlex.quote(path)
        line = f"if [ -e {q} ]; then stat -c '{_STAT_FORMAT}' {q}; "
        if sha256:
            line += f"[ -f {q} ] && sha256sum {q}; "
        line += f"else echo 'MISSING|'{q}; fi"
        script.append(line)
    result = driver.shell("; ".join(script))
    if not result.ok:
        raise DeviceError(f"{driver.serial}: stat probe failed: {result.stderr.decode(errors='replace')}")
    out: dict[str, dict[str, object] | None] = {p: None for p in paths}
    for line in result.text.splitlines():
        if line.startswith("MISSING|"):
            continue
        if "|" in line:
            name, size, mtime, kind = line.split("|", 3)
            out[name] = {"size": int(size), "mtime": int(mtime), "type": kind}
        elif sha256 and line.strip():
            digest, _, name = line.partition("  ")
            if isinstance(out.get(name), dict):
                out[name]["sha256"] = digest  # type: ignore[index]
    return out


def probe_persistent(driver: Driver, source: str, destination: str | None = None, *,
                     sha256: bool = False) -> ProbeResult:
    """``{"source_exists", "destination_exists"}`` for one artifact; evidence: stat of both paths. An artifact
    with no destination (a delete) reports ``destination_exists: false``."""
    paths = [source] + ([destination] if destination else [])
    stats = stat_paths(driver, paths, sha256=sha256)
    return ProbeResult(
        family="persistent",
        canonical={"source_exists": stats[source] is not None,
                   "destination_exists": bool(destination) and stats[destination] is not None},
        evidence={"source": source, "destination": destination, "stat": stats},
    )


@register_probe
class PersistentProbe(FamilyProbe):
    """:func:`probe_persistent` of ``source`` (required), ``destination`` and ``sha256``; ``emukit probe`` gives
    both paths with ``--path`` twice."""

    family = "persistent"
    cli_options = (
        CliOption("--path", action="append",
                  help="persistent: give twice, source then destination path of the artifact"),
        CliOption("--sha256", action="store_true", help="persistent: also hash the files (evidence)"),
    )

    def read(self, driver: Driver, **params: Any) -> ProbeResult:
        return probe_persistent(driver, params["source"], params.get("destination"),
                                sha256=params.get("sha256", False))

    def params_from_cli(self, options: Mapping[str, Any]) -> dict[str, Any]:
        paths = options.get("path")
        if not paths or len(paths) != 2:
            raise ProbeUsageError("--family persistent needs --path SOURCE --path DESTINATION")
        return {"source": paths[0], "destination": paths[1], "sha256": bool(options.get("sha256"))}

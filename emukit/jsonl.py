"""Reading JSON Lines files whose every line is one JSON object (exports, state-training rows, predictions):
blank lines are skipped, and a bad line is an error naming the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError


def read_objects(path: Path, error: type[ConfigError] = ConfigError) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, row)`` for every non-blank line of ``path``; ``where`` is ``"<path>:<line>"``. Raises
    ``error`` for a line that is not JSON or not a JSON object (the caller checks that the file exists)."""
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(f"{where}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise error(f"{where}: expected a JSON object, got {type(row).__name__}")
            yield where, row

"""Predictions made elsewhere: ``emukit evaluate --predictions FILE``.

The file is JSON Lines, one prediction per branch::

    {"pair_id": "copy_direct-7-0", "branch": "A", "condition": "observation", "model": "my-wm",
     "html": "<!DOCTYPE html>..."}
    {"pair_id": "copy_direct-7-0", "branch": "B", "condition": "observation", "model": "my-wm",
     "image": "renders/copy_direct-7-0_B.png"}

* ``pair_id``, ``branch`` (``A``/``B``), ``condition`` (observation, raw-history, oracle-state,
  predictive-state) and ``model`` are required; exactly one of ``html`` (the predicted page) or ``image`` (a
  PNG path, relative to the JSONL file's folder) carries the prediction.
* Optional: ``raw`` (the model's full output), ``error`` (the generation failed: the sample is kept and
  scored incorrect), ``request_hash`` (checked against the evaluator's own request when present).
* Lines of other conditions (or other models, when ``model`` is given to :class:`PredictionsFile`) are
  ignored. A branch with no line is scored incorrect as ``missing prediction`` (sample preserving).
* Image predictions are rendered as they are; with no DOM there is no semantic evidence (no OCR), so they
  score incorrect semantically but count for fidelity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.evaluate.adapters.base import Prediction, image_png
from emukit.jsonl import read_objects

CONDITIONS = ("observation", "raw-history", "oracle-state", "predictive-state")
REQUIRED = ("pair_id", "branch", "condition", "model")


class PredictionsFileError(ConfigError):
    """A predictions file or line that cannot be read; the message names the line and field."""


class PredictionsFile:
    """The predictions of one JSONL file, indexed by ``(pair_id, branch, condition)``."""

    def __init__(self, path: Path | str, *, model: str | None = None) -> None:
        self.path = Path(path)
        self.model = model
        self.models: set[str] = set()
        self._by_key: dict[tuple[str, str, str], dict[str, Any]] = {}
        try:
            rows = list(read_objects(self.path, PredictionsFileError))
        except OSError as exc:
            raise PredictionsFileError(f"{self.path}: cannot read ({exc.strerror})") from None
        for where, row in rows:
            for key in REQUIRED:
                if not isinstance(row.get(key), str) or not row[key]:
                    raise PredictionsFileError(f"{where}: field {key!r} is required (a string)")
            if row["branch"] not in ("A", "B"):
                raise PredictionsFileError(f"{where}: branch must be 'A' or 'B', got {row['branch']!r}")
            if row["condition"] not in CONDITIONS:
                raise PredictionsFileError(f"{where}: condition must be one of {', '.join(CONDITIONS)}")
            if "html" in row and "image" in row:
                raise PredictionsFileError(f"{where}: give either 'html' or 'image', not both")
            if model is not None and row["model"] != model:
                continue
            self.models.add(row["model"])
            key = (row["pair_id"], row["branch"], row["condition"])
            if key in self._by_key:
                raise PredictionsFileError(f"{where}: second prediction for pair {key[0]} branch {key[1]} "
                                           f"condition {key[2]}")
            self._by_key[key] = row

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, pair_id: str, branch: str, condition: str) -> Prediction:
        """The prediction for one branch (``error="missing prediction"`` when the file has none)."""
        row = self._by_key.get((pair_id, branch, condition))
        if row is None:
            return Prediction(error="missing prediction")
        meta = {k: row[k] for k in ("model", "request_hash") if k in row}
        if row.get("error"):
            return Prediction(raw=str(row.get("raw") or ""), error=f"generation failed: {row['error']}", meta=meta)
        if isinstance(row.get("image"), str):
            path = (self.path.parent / row["image"])
            try:
                data = path.read_bytes()
            except OSError as exc:
                return Prediction(error=f"image {row['image']!r} cannot be read: {exc.strerror}", meta=meta)
            try:
                return Prediction(image=image_png(data, f"image {row['image']!r}"), raw=str(row.get("raw") or ""),
                                  meta=meta)
            except ValueError as exc:
                return Prediction(error=f"malformed output: {exc}", meta=meta)
        html = row.get("html")
        if not isinstance(html, str) or not html.strip():
            return Prediction(raw=str(row.get("raw") or ""), error="empty output", meta=meta)
        return Prediction(html=html, raw=str(row.get("raw") or html), meta=meta)

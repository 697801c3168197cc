"""Builders of deterministic pairs, rejections and artifact bytes shared by the store tests (and by the
writer process of the crash-safety test)."""

from __future__ import annotations

import hashlib

from emukit.actions import Action, Element
from emukit.records import BranchRecord, Observation, PairRecord, Rejection, Step, Validation, WarpRecord

TEMPLATE = "copy_direct"
SEED = 7


def blob(label: str, size: int = 256, ext: str = "png") -> bytes:
    """Deterministic bytes for ``label``: a PNG signature or an XML prolog, then filler."""
    head = b"\x89PNG\r\n\x1a\n" if ext == "png" else b"<?xml version='1.0' encoding='UTF-8'?><hierarchy>"
    seed = hashlib.sha256(label.encode()).digest()
    return head + (seed * (size // len(seed) + 1))[:size]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Obs:
    """Collects the artifacts of the observations it makes."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.artifacts: dict[str, tuple[bytes, str]] = {}

    def __call__(self, label: str) -> Observation:
        png, xml = blob(label + "/png", self.size, "png"), blob(label + "/xml", self.size // 4, "xml")
        self.artifacts[sha(png)] = (png, "png")
        self.artifacts[sha(xml)] = (xml, "xml")
        return Observation(screenshot=sha(png), hierarchy=sha(xml))


def make_pair(slot: int, *, template: str = TEMPLATE, seed: int = SEED, family: str = "persistent",
              size: int = 256, steps: tuple[int, int] = (3, 2)) -> tuple[PairRecord, dict[str, tuple[bytes, str]]]:
    """A deterministic accepted pair for work key (template, seed, slot) and the artifacts it refers to."""
    obs = _Obs(size)
    key = f"{template}/{seed}/{slot}"
    target = Element(text=f"file{slot}.txt", resource_id="com.example.files:id/name",
                     cls="android.widget.TextView", bounds=(0, 100 + slot, 1080, 220 + slot))
    shared = Action(type="tap", x=540, y=160 + slot, element=target, elapsed_ms=12.5)
    boundary = obs(f"{key}/boundary")  # equal in A and B: that is what makes the pair strict

    def branch(name: str, n_steps: int) -> BranchRecord:
        history = [Step(observation=obs(f"{key}/{name}/step{i}"),
                        action=Action(type="type", text=f"{name}{i} ünï", elapsed_ms=1.0 + i)
                        if i % 2 else Action(type="swipe", x=1, y=2, x2=3, y2=4, duration_ms=300))
                   for i in range(n_steps)]
        return BranchRecord(
            name=name, history=history, boundary_observation=boundary, boundary_recaptured=boundary,  # type: ignore[arg-type]
            state={"target": f"file{slot}.txt", "exists": name == "A", "where": ["Download", name]},
            state_evidence={"ls": f"-rw-r--r-- file{slot}.txt"} if name == "A" else {},
            shared_action=shared, next_observation=obs(f"{key}/{name}/next"),
            outcome={"present": name == "A", "score": 0.25 * slot}, outcome_evidence={"find": [name, slot]},
            warp=WarpRecord(seconds=90.5, method="prefs", details={"n": slot}) if name == "B" else None,
            timings_ms={"snapshot_load": 1.5, "actions": 20.0 + slot},
        )

    record = PairRecord(
        pair_id=f"{template}-{seed}-{slot:04d}", family=family, template=template,  # type: ignore[arg-type]
        template_hash="ab" * 32, params={"target": f"file{slot}.txt", "ext": "txt", "nested": {"k": [1, 2]}},
        seed=seed, base_snapshot="files_base", shared_action=shared,
        request_hashes={"code2world": "cd" * 32, "gworld": "ef" * 32},
        branches={"A": branch("A", steps[0]), "B": branch("B", steps[1])},
        validation=Validation(stable_boundary=True, observation_match=True, state_differs=True,
                              outcome_differs=True, validator_pass=True),
        device="emulator-5554", attempt=slot % 3,
    )
    return record, obs.artifacts


def make_rejection(slot: int, reason: str, *, template: str = TEMPLATE, seed: int = SEED,
                   family: str = "persistent", attempt: int = 0) -> Rejection:
    return Rejection(family=family, template=template, params={"target": f"file{slot}.txt"},  # type: ignore[arg-type]
                     seed=seed, attempt=attempt, reason=reason, detail=f"slot {slot} failed: {reason}",
                     device="emulator-5556")

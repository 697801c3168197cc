"""Snapshots: the state model plus a copy of the device root, kept under ``<state-dir>/snapshots``."""

from __future__ import annotations


class SnapshotStore:
    def __init__(self, device) -> None:
        self.device = device

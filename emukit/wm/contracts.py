"""Per-family transition contracts: one fixed instruction per state family saying what the shared action
reveals (seed 002 Appendix E.5, the ``Q_f`` of every request).

A contract is branch-independent — it describes the *rule*, never the branch's state — so it is part of the
observation-only request too and A/B requests stay identical. Each family's contract is its unit's
``contract`` (``emukit/families/<family>.py``); the wording is emukit's own and follows the seed's
description of each family's probe action (Table 14 / Table 20).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from emukit.families import FAMILIES, check_family, unit

__all__ = ["CONTRACTS", "FAMILIES", "check_family", "contract_for"]


class _Contracts(Mapping[str, str]):
    """``family -> contract`` over the registered families, read from their units."""

    def __getitem__(self, family: str) -> str:
        return unit(family).contract

    def __iter__(self) -> Iterator[str]:
        return iter(FAMILIES)

    def __len__(self) -> int:
        return len(FAMILIES)


CONTRACTS: Mapping[str, str] = _Contracts()


def contract_for(family: str) -> str:
    """The fixed transition contract of ``family``."""
    return unit(family).contract

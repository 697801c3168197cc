"""Per-family transition contracts: one fixed instruction per state family saying what the shared action
reveals (seed 002 Appendix E.5, the ``Q_f`` of every request).

A contract is branch-independent — it describes the *rule*, never the branch's state — so it is part of the
observation-only request too and A/B requests stay identical. The wording is emukit's own; it follows the
seed's description of each family's probe action (Table 14 / Table 20).
"""

from __future__ import annotations

from emukit.errors import ConfigError
from emukit.families import FAMILIES

CONTRACTS: dict[str, str] = {
    "persistent": (
        "File contract: the entity context names one tracked file. Opening a folder lists that folder, and the "
        "tracked file appears in it only if it currently exists at that exact path. A filename search started "
        "from the Files screen is limited to Downloads: it lists the file when a tracked copy exists under "
        "Downloads and otherwise shows the empty result 'No matches in Downloads'; every scope or location "
        "label of the search says Downloads. Never carry the file over from the screenshot when it no longer "
        "exists."
    ),
    "clipboard": (
        "Clipboard contract: the action pastes the current system clipboard into the focused editor. The "
        "screenshot does not show the clipboard; after the action the editor body holds exactly the pasted "
        "text, unchanged. An empty clipboard inserts nothing."
    ),
    "ordered": (
        "Collection contract: the action opens a playlist or the playing queue. Its rows are the collection's "
        "current items in their stored order: do not sort, deduplicate, drop or invent items."
    ),
    "temporal": (
        "Timer contract: the action waits for the stated duration and then opens the notification shade over "
        "the whole screen. A running timer whose remaining time is not longer than the wait has fired and shows "
        "a Clock notification with Time's up and Stop; a running timer with time left shows its updated "
        "countdown with Pause; without an active timer there is no timer notification."
    ),
}


def check_family(family: str) -> str:
    """Return ``family`` if it is one of :data:`FAMILIES`, else raise :class:`ConfigError`."""
    if family not in FAMILIES:
        raise ConfigError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    return family


def contract_for(family: str) -> str:
    """The fixed transition contract of ``family``."""
    return CONTRACTS[check_family(family)]

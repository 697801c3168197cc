"""Each family's probe is a piece registered by its own module (emukit/probes/<family>.py): :func:`probe` and
``emukit probe`` find it by the family's name, and the piece says which ``emukit probe`` options it reads and
how they become its parameters. No device: nothing here reads one."""

from __future__ import annotations

import argparse

import pytest

from emukit.cli import build_parser
from emukit.commands.devices import _cmd_probe
from emukit.errors import ConfigError
from emukit.families import FAMILIES
from emukit.probes import PROBES, FamilyProbe, ProbeResult, ProbeUsageError, probe


def _probe_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["probe", "emulator-5554", *argv])


def _probe_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["probe"]


def test_every_family_has_a_probe():
    assert PROBES.missing() == []
    assert set(PROBES) == set(FAMILIES)
    assert all(PROBES[f].family == f for f in FAMILIES)


def test_the_cli_options_become_the_probes_parameters():
    args = _probe_args("--family", "persistent", "--path", "/a/x.txt", "--path", "/b/x.txt", "--sha256")
    assert PROBES[args.family].params_from_cli(vars(args)) == {"source": "/a/x.txt", "destination": "/b/x.txt",
                                                                "sha256": True}
    args = _probe_args("--family", "ordered", "--playlist", "Focus")
    assert PROBES[args.family].params_from_cli(vars(args)) == {"playlist": "Focus"}
    args = _probe_args("--family", "temporal", "--timer-id", "3")
    assert PROBES[args.family].params_from_cli(vars(args)) == {"timer_id": 3}
    args = _probe_args("--family", "clipboard")
    assert PROBES[args.family].params_from_cli(vars(args)) == {}
    with pytest.raises(ProbeUsageError, match="^--family persistent needs --path SOURCE --path DESTINATION$"):
        PROBES["persistent"].params_from_cli(vars(_probe_args("--family", "persistent", "--path", "/a")))


def test_a_usage_error_exits_2_before_any_device_is_reached(capsys):
    assert _cmd_probe(_probe_args("--family", "persistent")) == 2
    assert capsys.readouterr().err == "emukit probe: --family persistent needs --path SOURCE --path DESTINATION\n"


def test_the_family_choices_come_from_the_registry():
    family = next(a for a in _probe_parser()._actions if a.dest == "family")
    assert tuple(family.choices) == FAMILIES


def test_probe_dispatches_through_the_registry(monkeypatch):
    class Echo(FamilyProbe):
        family = "clipboard"

        def read(self, driver, **params):
            return ProbeResult(family=self.family, canonical={"driver": driver, **params})

    monkeypatch.setitem(PROBES._entries, "clipboard", Echo())  # the registered probe, replaced for this test
    assert probe("d", "clipboard", a=1).canonical == {"driver": "d", "a": 1}
    assert "--playlist" in _probe_parser().format_help()
    monkeypatch.delitem(PROBES._entries, "ordered")  # a family whose probe is missing is named
    with pytest.raises(ConfigError, match="family 'ordered' has no probe"):
        probe("d", "ordered")
    assert "--playlist" not in _probe_parser().format_help()  # its options went with it
    with pytest.raises(ConfigError, match="unknown family 'weather'"):
        probe("d", "weather")

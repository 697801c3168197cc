"""Where a pair was built, kept in the store: round trip, selection by device kind and app build, and a
request's pairs refused when they would mix kinds or app builds (SQLite here; the PostgreSQL store runs the
same code). No device: the provenance is written as a device would report it."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.provenance import AppBuild, BuiltOn, Display, mismatch, parse_app_build, selects
from emukit.store import MixedProvenanceError, Store
from tests.store import make_pair

FILES = "com.google.android.documentsui"


def built_on(kind: str = "virtual-deterministic", code: int = 340916000) -> BuiltOn:
    return BuiltOn(kind=kind, fingerprint="google/sdk_gphone64_x86_64/emu64x:14/x",  # type: ignore[arg-type]
                   api_level=34, abi="x86_64", display=Display(width=1080, height=2400, density=420),
                   apps={FILES: AppBuild(version_name="14", version_code=code)}, emukit_version="0.1.0")


def pair(slot: int, on: BuiltOn, seed: int = 7):
    record, artifacts = make_pair(slot, seed=seed)
    return record.model_copy(update={"built_on": on}), artifacts


def test_a_pair_keeps_where_it_was_built(tmp_path: Path):
    with Store(data_dir=tmp_path, durable=False) as store:
        record, artifacts = pair(0, built_on())
        assert store.add_pair(record, 0, artifacts)
        back = store.get_pair(record.pair_id)
        assert back is not None and back == record and back.built_on == built_on()
        assert store.stored_built_on(record.template, record.seed) == built_on()
        assert store.stored_built_on(record.template, 999) is None


def test_a_request_refuses_another_device_kind_unless_mixing_is_allowed(tmp_path: Path):
    with Store(data_dir=tmp_path, durable=False) as store:
        first, artifacts = pair(0, built_on())
        assert store.add_pair(first, 0, artifacts)
        other, other_artifacts = pair(1, built_on("virtual-hardware"))
        with pytest.raises(MixedProvenanceError, match=r"copy_direct-7-0001 .* built on device kind "
                                                        r"virtual-hardware \(the stored pairs were built on "
                                                        r"virtual-deterministic\).*--allow-mixed"):
            store.add_pair(other, 1, other_artifacts)
        assert store.count_pairs() == 1 and not store.has_pair(other.template, other.seed, 1)  # nothing written
        newer, artifacts = pair(2, built_on(code=340917000))
        with pytest.raises(MixedProvenanceError, match=f"{FILES} versionCode 340917000 .*built with 340916000"):
            store.add_pair(newer, 2, artifacts)
        assert store.add_pair(other, 1, other_artifacts, allow_mixed=True)
        elsewhere, artifacts = pair(3, built_on("emulator"), seed=8)  # another request: no mixing
        assert store.add_pair(elsewhere, 3, artifacts)
        assert store.count_pairs() == 3


def test_pairs_are_selected_by_device_kind_and_app_build(tmp_path: Path):
    with Store(data_dir=tmp_path, durable=False) as store:
        for slot, on in enumerate((built_on(), built_on("virtual-hardware"), built_on(code=1))):
            record, artifacts = pair(slot, on)
            assert store.add_pair(record, slot, artifacts, allow_mixed=True)
        ids = lambda **kw: [p.pair_id[-1] for p in store.pairs(**kw)]  # noqa: E731
        assert ids() == ["0", "1", "2"]
        assert ids(kinds=("virtual-hardware",)) == ["1"]
        assert ids(kinds=("virtual-deterministic",)) == ["0", "2"]
        assert ids(app_builds=((FILES, 340916000),)) == ["0", "1"]
        assert ids(kinds=("virtual-deterministic",), app_builds=((FILES, 1),)) == ["2"]
        assert ids(app_builds=(("net.gsantner.markor", 146),)) == []  # a package the template never touched


def test_the_provenance_helpers():
    assert mismatch(built_on(), built_on()) is None
    assert mismatch(built_on(), built_on().model_copy(update={"fingerprint": "another/build"})) is None
    assert mismatch(BuiltOn.unknown(), built_on()) == "device kind virtual-deterministic (the stored pairs were " \
                                                      "built on unknown)"
    assert parse_app_build("net.gsantner.markor=146") == ("net.gsantner.markor", 146)
    for bad in ("net.gsantner.markor", "=146", "x=abc"):
        with pytest.raises(ValueError, match="is not PACKAGE=VERSIONCODE"):
            parse_app_build(bad)
    assert selects(built_on(), kinds=("virtual-deterministic", "emulator"))
    assert not selects(BuiltOn.unknown(), kinds=("virtual-deterministic",))
    assert "unknown device" in BuiltOn.unknown().describe()
    assert built_on().describe().startswith("virtual-deterministic, API 34, google/")

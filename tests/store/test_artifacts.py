"""The content-addressed artifact store: layout, atomic idempotent writes, verification of reads, concurrent
writers (threads and processes) of the same object, leftovers of a crashed writer, and gc."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from emukit.store import ArtifactStore, CorruptArtifactError, MissingArtifactError, StoreError
from tests.store import blob, sha


@pytest.fixture
def store(tmp_path: Path) -> ArtifactStore:
    return ArtifactStore(tmp_path / "artifacts")


def test_put_layout_and_get(store: ArtifactStore, tmp_path: Path):
    data = blob("screen", 1000)
    digest = store.put(data, "png")
    assert digest == sha(data)
    path = store.path(digest, "png")
    assert path == tmp_path / "artifacts" / digest[:2] / digest[2:4] / f"{digest}.png"
    assert path.read_bytes() == data
    assert store.exists(digest, "png") and not store.exists(digest, "xml")
    assert store.get(digest, "png") == data
    assert store.put(b"<x/>", ".xml") == sha(b"<x/>")  # a leading dot is accepted
    assert [(s, e) for s, e, _ in store.objects()] == sorted([(digest, "png"), (sha(b"<x/>"), "xml")],
                                                            key=lambda r: str(store.path(*r)))
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_existing_object_is_not_rewritten(store: ArtifactStore):
    digest = store.put(b"same bytes", "json")
    path = store.path(digest, "json")
    old = path.stat().st_mtime_ns
    os.utime(path, ns=(old - 10**9, old - 10**9))
    store.put(b"same bytes", "json")
    assert path.stat().st_mtime_ns == old - 10**9


def test_truncated_object_is_repaired_by_put(store: ArtifactStore):
    data = blob("x", 500)
    digest = store.put(data, "png")
    store.path(digest, "png").write_bytes(data[:100])
    store.put(data, "png")
    assert store.get(digest, "png") == data


def test_missing_and_corrupt_objects_name_the_path(store: ArtifactStore):
    digest = sha(b"never stored")
    with pytest.raises(MissingArtifactError, match=digest) as missing:
        store.get(digest, "png")
    assert missing.value.path == store.path(digest, "png")
    good = store.put(blob("a"), "png")
    path = store.path(good, "png")
    path.write_bytes(b"garbage" + path.read_bytes()[7:])
    with pytest.raises(CorruptArtifactError, match=f"artifact {path} is corrupt"):
        store.get(good, "png")
    with pytest.raises(CorruptArtifactError):
        store.verify(good, "png")
    assert store.verify_all() == [path]


def test_verify_all_flags_misplaced_objects_and_ignores_temp_files(store: ArtifactStore):
    ok = store.put(blob("ok"), "png")
    other = store.put(blob("other"), "png")
    misplaced = store.path(other, "png").rename(store.path(ok, "png").parent / f"{other}.png")
    (store.path(ok, "png").parent / f".{ok}.123.abc.tmp").write_bytes(b"partial")
    assert store.verify_all() == [misplaced]


@pytest.mark.parametrize("bad_sha", ["", "ABC", "g" * 64, "a" * 63, "../" + "a" * 61])
def test_bad_hash_rejected(store: ArtifactStore, bad_sha: str):
    with pytest.raises(StoreError, match="SHA-256"):
        store.path(bad_sha, "png")


@pytest.mark.parametrize("bad_ext", ["", "p/ng", "PNG", "x" * 17, "tar.gz"])
def test_bad_extension_rejected(store: ArtifactStore, bad_ext: str):
    with pytest.raises(StoreError, match="extension"):
        store.put(b"data", bad_ext)


def test_put_many_checks_every_hash_before_writing(store: ArtifactStore):
    good, bad = blob("g"), blob("b")
    with pytest.raises(StoreError, match=f"given as {sha(good)}.*hashes to {sha(bad)}"):
        store.put_many({sha(blob("z")): (blob("z"), "png"), sha(good): (bad, "png")})
    assert list(store.objects()) == []


def test_threads_writing_the_same_objects(store: ArtifactStore):
    payloads = [blob(f"p{i}", 20_000) for i in range(8)]
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                for data in payloads:
                    assert store.get(store.put(data, "png"), "png") == data
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(list(store.objects())) == 8 and store.verify_all() == []
    assert not [p for p in store.root.rglob(".*") if p.is_file()]


def _put_payloads(root: str) -> None:
    store = ArtifactStore(root)
    for _ in range(10):
        for i in range(10):
            store.put(blob(f"p{i}", 50_000), "png")


@pytest.mark.skipif(sys.platform == "win32", reason="uses fork")
def test_processes_writing_the_same_objects(store: ArtifactStore):
    ctx = multiprocessing.get_context("fork")  # fork: no interpreter start-up per process
    procs = [ctx.Process(target=_put_payloads, args=(str(store.root),)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    assert len(list(store.objects())) == 10 and store.verify_all() == []


def test_gc_keeps_referenced_and_young_objects(store: ArtifactStore):
    keep, drop, young = (store.put(blob(n), "png") for n in ("keep", "drop", "young"))
    tmp = store.path(keep, "png").parent / f".{keep}.1.x.tmp"
    tmp.write_bytes(b"crashed writer")
    old = time.time() - 7200
    for path in (store.path(keep, "png"), store.path(drop, "png"), tmp):
        os.utime(path, (old, old))
    removed = store.gc({keep}, grace_s=3600)
    assert sorted(removed) == sorted([store.path(drop, "png"), tmp])
    assert store.exists(keep, "png") and store.exists(young, "png") and not store.exists(drop, "png")
    assert store.gc(set(), grace_s=0) and list(store.objects()) == []

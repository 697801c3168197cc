"""TFRecord files read without TensorFlow: the record framing and ``tf.train.Example`` features.

A TFRecord file is a sequence of records, each ``uint64 length``, ``uint32 masked CRC-32C of the length``,
``length`` bytes of data, ``uint32 masked CRC-32C of the data`` (little-endian), where a masked CRC is
``((crc >> 15) | (crc << 17)) + 0xa282ead8`` modulo 2**32 (TensorFlow's record format, as its TFRecord
guide documents it). Files may be GZIP-compressed as a whole (AndroidControl's are). Both checksums are
verified, so a truncated download or a file of another format fails on its first bad record, with the file
and record number, instead of being decoded as garbage.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import google_crc32c

from emukit.evaluate.trajectories.base import TrajectoryError

MASK_DELTA = 0xA282EAD8


def masked_crc(data: bytes) -> int:
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF


def _open(path: Path) -> BinaryIO:
    with path.open("rb") as probe:
        magic = probe.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else path.open("rb")  # type: ignore[return-value]


def records(path: Path) -> Iterator[bytes]:
    """The data of every record in ``path`` (plain or GZIP-compressed), checksums verified."""
    try:
        with _open(path) as f:
            n = 0
            while True:
                head = f.read(12)
                if not head:
                    return
                if len(head) < 12:
                    raise TrajectoryError(f"{path}: record {n} is cut short (a truncated file?)")
                length, length_crc = struct.unpack("<QI", head)
                if masked_crc(head[:8]) != length_crc:
                    raise TrajectoryError(f"{path}: record {n}: the length checksum does not match (not a TFRecord "
                                          "file, or a damaged one)")
                data = f.read(length)
                tail = f.read(4)
                if len(data) < length or len(tail) < 4:
                    raise TrajectoryError(f"{path}: record {n} is cut short (a truncated file?)")
                if masked_crc(data) != struct.unpack("<I", tail)[0]:
                    raise TrajectoryError(f"{path}: record {n}: the data checksum does not match (a damaged file)")
                yield data
                n += 1
    except (OSError, EOFError, zlib.error) as exc:
        raise TrajectoryError(f"{path}: cannot read ({exc})") from None


def write_records(path: Path, items: list[bytes], *, compress: bool = True) -> None:
    """Write ``items`` as a TFRecord file (used to make fixtures and by anyone exporting to the format)."""
    out = b"".join(struct.pack("<Q", len(d)) + struct.pack("<I", masked_crc(struct.pack("<Q", len(d)))) + d
                   + struct.pack("<I", masked_crc(d)) for d in items)
    path.write_bytes(gzip.compress(out) if compress else out)


def example_features(data: bytes, where: str) -> dict[str, list[Any]]:
    """A serialized ``tf.train.Example`` as ``{name: [values]}`` (bytes, floats or ints per feature)."""
    from google.protobuf.message import DecodeError

    from emukit.proto.tf_example_pb2 import Example

    example = Example()
    try:
        example.ParseFromString(data)
    except DecodeError as exc:
        raise TrajectoryError(f"{where}: not a tf.train.Example ({exc})") from None
    out: dict[str, list[Any]] = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        out[name] = list(getattr(feature, kind).value) if kind else []
    return out


def example_bytes(features: dict[str, list[Any]]) -> bytes:
    """The inverse of :func:`example_features`: bytes values go to a BytesList, floats to a FloatList, ints to
    an Int64List."""
    from emukit.proto.tf_example_pb2 import Example

    example = Example()
    for name, values in features.items():
        feature = example.features.feature[name]
        if all(isinstance(v, bytes) for v in values):
            feature.bytes_list.value.extend(values)
        elif all(isinstance(v, int) for v in values):
            feature.int64_list.value.extend(values)
        else:
            feature.float_list.value.extend(float(v) for v in values)
    return example.SerializeToString()

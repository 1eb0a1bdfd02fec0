"""TensorBoard event files (the format TRL and verl write), without the tensorboard package.

A file `events.out.tfevents.<unix time>.<host>.<pid>` is a sequence of TFRecords:
    uint64 length (little-endian) | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)
where masked(c) = ((c >> 15) | (c << 17)) + 0xa282ead8 (mod 2**32) and crc32c is CRC-32 with the Castagnoli
polynomial. Each record's data is a serialized tensorflow `Event` protobuf; the fields written here:
    Event:   1 wall_time (double)  2 step (int64)  3 file_version (string)  5 summary (Summary)
             7 session_log (SessionLog)
    Summary: 1 value (repeated Value);  Value: 1 tag (string)  2 simple_value (float)
    SessionLog: 1 status (enum; START = 1)
The first record is file_version "brain.Event:2", as TensorFlow's writer does. A resumed job writes a new
file that starts with SessionLog START at the first step it trains: TensorBoard then drops the points at
and after that step from the older files (the steps the killed attempt ran after its last save).
"""

from __future__ import annotations

import math
import os
import socket
import struct
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

_CRC32C_POLY = 0x82F63B78  # reflected Castagnoli polynomial


def _table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _CRC32C_POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord around `data`."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


# ---- protobuf wire format (only what Event needs) --------------------------------------------------


def _varint(n: int) -> bytes:
    if n < 0:
        n &= (1 << 64) - 1  # int64 negatives are ten-byte two's complement varints
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _bytes_field(field: int, value: bytes) -> bytes:
    return _key(field, 2) + _varint(len(value)) + value


def _event(wall_time: float, step: int, body: bytes) -> bytes:
    return _key(1, 1) + struct.pack("<d", wall_time) + _key(2, 0) + _varint(step) + body


def file_version_event(wall_time: float) -> bytes:
    return _key(1, 1) + struct.pack("<d", wall_time) + _bytes_field(3, b"brain.Event:2")


def scalars_event(wall_time: float, step: int, values: Mapping[str, float]) -> bytes:
    summary = b"".join(
        _bytes_field(1, _bytes_field(1, tag.encode("utf-8")) + _key(2, 5) + struct.pack("<f", float(v)))
        for tag, v in values.items()
    )
    return _event(wall_time, step, _bytes_field(5, summary))


def session_start_event(wall_time: float, step: int) -> bytes:
    return _event(wall_time, step, _bytes_field(7, _key(1, 0) + _varint(1)))


class EventWriter:
    """Appends scalar events to one new event file in `logdir`; every write is flushed (a kill -9 loses at
    most the record being written, which TensorBoard's reader skips as a truncated record)."""

    def __init__(self, logdir: str | Path, resumed_at_step: int | None = None) -> None:
        self.logdir = Path(logdir)
        self.logdir.mkdir(parents=True, exist_ok=True)
        now = time.time()
        self.path = self.logdir / f"events.out.tfevents.{int(now)}.{socket.gethostname()}.{os.getpid()}"
        self._f: IO[bytes] = open(self.path, "ab")
        self._write(file_version_event(now))
        if resumed_at_step is not None:
            self._write(session_start_event(now, resumed_at_step))

    def _write(self, event: bytes) -> None:
        self._f.write(record(event))
        self._f.flush()

    def scalars(self, step: int, values: Mapping[str, float | None]) -> None:
        finite = {k: float(v) for k, v in values.items() if v is not None and math.isfinite(float(v))}
        if finite:
            self._write(scalars_event(time.time(), step, finite))

    def close(self) -> None:
        self._f.close()

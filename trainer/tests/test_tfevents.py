"""TensorBoard event files, decoded here without the writer's code: a bit-by-bit CRC-32C (checked against the
RFC 3720 test vectors), the TFRecord framing, and a generic protobuf wire-format reader."""

from __future__ import annotations

import struct

import pytest

from pau_trainer import tfevents
from pau_trainer.tfevents import EventWriter


def crc32c_bitwise(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def unmask(masked: int) -> int:
    rot = (masked - 0xA282EAD8) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def read_records(raw: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(raw):
        header = raw[pos : pos + 8]
        (length,) = struct.unpack("<Q", header)
        (hcrc,) = struct.unpack("<I", raw[pos + 8 : pos + 12])
        assert unmask(hcrc) == crc32c_bitwise(header)
        data = raw[pos + 12 : pos + 12 + length]
        (dcrc,) = struct.unpack("<I", raw[pos + 12 + length : pos + 16 + length])
        assert unmask(dcrc) == crc32c_bitwise(data)
        out.append(data)
        pos += 16 + length
    return out


def fields(msg: bytes) -> list[tuple[int, int, object]]:
    """(field number, wire type, value) of a protobuf message: varint -> int, 64-bit -> bytes(8),
    length-delimited -> bytes, 32-bit -> bytes(4)."""
    out, pos = [], 0

    def varint() -> int:
        nonlocal pos
        shift = n = 0
        while True:
            b = msg[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    while pos < len(msg):
        key = varint()
        num, wire = key >> 3, key & 7
        if wire == 0:
            val: object = varint()
        elif wire == 1:
            val, pos = msg[pos : pos + 8], pos + 8
        elif wire == 2:
            n = varint()
            val, pos = msg[pos : pos + n], pos + n
        elif wire == 5:
            val, pos = msg[pos : pos + 4], pos + 4
        else:
            raise AssertionError(f"wire type {wire}")
        out.append((num, wire, val))
    return out


def decode_event(data: bytes) -> dict:
    ev: dict = {"scalars": {}}
    for num, wire, val in fields(data):
        if (num, wire) == (1, 1):
            ev["wall_time"] = struct.unpack("<d", val)[0]
        elif (num, wire) == (2, 0):
            ev["step"] = val
        elif (num, wire) == (3, 2):
            ev["file_version"] = val.decode()
        elif (num, wire) == (5, 2):  # Summary
            for vnum, _, value in fields(val):
                assert vnum == 1
                parts = {n: v for n, _, v in fields(value)}
                ev["scalars"][parts[1].decode()] = struct.unpack("<f", parts[2])[0]
        elif (num, wire) == (7, 2):  # SessionLog
            ev["session_status"] = {n: v for n, _, v in fields(val)}[1]
        else:
            raise AssertionError(f"unexpected Event field {num}/{wire}")
    return ev


def test_crc32c_matches_rfc3720_vectors_and_an_independent_implementation():
    assert crc32c_bitwise(b"123456789") == 0xE3069283  # the CRC catalogue's check value
    assert crc32c_bitwise(bytes(32)) == 0x8A9136AA  # RFC 3720 B.4: 32 bytes of zeros
    assert crc32c_bitwise(b"\xff" * 32) == 0x62A8AB43  # 32 bytes of ones
    assert crc32c_bitwise(bytes(range(32))) == 0x46DD794E  # incrementing
    for data in (b"", b"a", b"brain.Event:2", bytes(range(256)) * 3):
        assert tfevents.crc32c(data) == crc32c_bitwise(data)


def test_event_file_decodes_to_what_was_written(tmp_path):
    w = EventWriter(tmp_path / "tb")
    w.scalars(
        1, {"train/loss": 2.5, "train/kl": 0.0, "train/tokens_per_s": 123.25, "train/nan": float("nan"), "skip": None}
    )
    w.scalars(2, {"train/loss": -1.125})
    w.close()
    (f,) = list((tmp_path / "tb").glob("events.out.tfevents.*"))
    events = [decode_event(r) for r in read_records(f.read_bytes())]
    assert events[0]["file_version"] == "brain.Event:2" and events[0]["wall_time"] > 1.6e9
    assert [e.get("step") for e in events[1:]] == [1, 2]
    assert events[1]["scalars"] == {"train/loss": 2.5, "train/kl": 0.0, "train/tokens_per_s": 123.25}
    assert events[2]["scalars"] == {"train/loss": -1.125}


def test_a_resumed_writer_starts_with_session_start_at_its_first_step(tmp_path):
    w = EventWriter(tmp_path, resumed_at_step=4)
    w.scalars(4, {"train/loss": 1.0})
    w.close()
    events = [decode_event(r) for r in read_records(next(tmp_path.glob("events.*")).read_bytes())]
    assert events[1]["session_status"] == 1 and events[1]["step"] == 4  # SessionLog.START
    assert events[2]["scalars"] == {"train/loss": 1.0}


@pytest.mark.parametrize("step", [0, 127, 128, 2**40])
def test_steps_of_any_size_round_trip(tmp_path, step):
    w = EventWriter(tmp_path / str(step))
    w.scalars(step, {"x": 1.0})
    w.close()
    (f,) = list((tmp_path / str(step)).glob("events.*"))
    assert decode_event(read_records(f.read_bytes())[1])["step"] == step


def job_scalars(output_dir) -> dict[int, dict[str, float]]:
    """A job's TensorBoard points by step, files read in order, a SessionLog START dropping the points at and
    after its step from earlier files (what TensorBoard shows)."""
    by_step: dict[int, dict[str, float]] = {}
    for f in sorted((output_dir / "tensorboard").glob("events.out.tfevents.*"), key=lambda p: p.stat().st_mtime):
        for e in map(decode_event, read_records(f.read_bytes())):
            if e.get("session_status") == 1:
                by_step = {s: v for s, v in by_step.items() if s < e["step"]}
            elif e["scalars"]:
                by_step.setdefault(e["step"], {}).update(e["scalars"])
    return by_step


@pytest.mark.model
def test_an_sft_job_writes_its_steps_to_tensorboard(marker_run):
    from pathlib import Path

    run, spec = marker_run
    points = job_scalars(Path(spec["output_dir"]))
    losses = run.of("done")[0]["metrics"]["losses"]
    assert sorted(points) == list(range(1, len(losses) + 1))
    assert [points[s]["train/loss"] for s in sorted(points)] == pytest.approx(losses, abs=1e-5)
    assert {"train/grad_norm", "train/tokens_per_s", "train/lr", "train/trained_tokens"} <= set(points[1])

"""A job's TensorBoard event files (written with tensorboardX), read back as TensorBoard reads them: TFRecords
(uint64 length, its CRC, the data, its CRC; the CRCs are not checked here) of `Event` protobufs."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from tensorboardX.proto.event_pb2 import Event, SessionLog

from conftest import marker_spec
from pau_trainer.cancel import Cancel
from pau_trainer.job import Job
from pau_trainer.protocol import parse_spec


def read_events(path: Path) -> list[Event]:
    raw, pos, out = path.read_bytes(), 0, []
    while pos + 12 <= len(raw):
        (length,) = struct.unpack("<Q", raw[pos : pos + 8])
        out.append(Event.FromString(raw[pos + 12 : pos + 12 + length]))
        pos += 16 + length
    return out


def job_scalars(output_dir: Path) -> dict[int, dict[str, float]]:
    """A job's TensorBoard points by step, files read in order, a SessionLog START dropping the points at and
    after its step from earlier files (what TensorBoard shows)."""
    by_step: dict[int, dict[str, float]] = {}
    for f in sorted((output_dir / "tensorboard").glob("events.out.tfevents.*"), key=lambda p: p.stat().st_mtime):
        for e in read_events(f):
            if e.session_log.status == SessionLog.START:
                by_step = {s: v for s, v in by_step.items() if s < e.step}
            for v in e.summary.value:
                by_step.setdefault(e.step, {})[v.tag] = v.simple_value
    return by_step


def a_job(out: Path) -> Job:
    spec = parse_spec("sft", marker_spec(Path("unused-base"), out))
    return Job("sft", spec, Cancel(), spec.data)  # type: ignore[arg-type]


def test_a_job_writes_the_finite_numbers_of_each_step(tmp_path):
    job = a_job(tmp_path / "out")
    job.log_scalars(1, {"loss": 2.5, "lr": 0.125, "nan": float("nan"), "inf": float("inf"), "done": True, "x": "a"})
    job.log_scalars(2, {"loss": -1.125, "tokens": 96})
    (f,) = list((tmp_path / "out" / "tensorboard").glob("events.out.tfevents.*"))
    events = read_events(f)  # flushed as written: readable while the job runs
    assert events[0].file_version == "brain.Event:2" and events[0].wall_time > 1.6e9
    assert [e.step for e in events[1:]] == [1, 2]
    assert job_scalars(tmp_path / "out") == {
        1: {"train/loss": 2.5, "train/lr": 0.125},
        2: {"train/loss": -1.125, "train/tokens": 96.0},
    }


def test_a_resumed_job_starts_its_file_with_session_start_at_its_first_step(tmp_path):
    job = a_job(tmp_path / "out")
    job.log_scalars(4, {"loss": 1.0})
    (f,) = list((tmp_path / "out" / "tensorboard").glob("events.out.tfevents.*"))
    events = read_events(f)
    assert events[1].session_log.status == SessionLog.START and events[1].step == 4
    assert [(v.tag, v.simple_value) for v in events[2].summary.value] == [("train/loss", 1.0)]


@pytest.mark.model
def test_an_sft_job_writes_its_steps_to_tensorboard(marker_run):
    run, spec = marker_run
    points = job_scalars(Path(spec["output_dir"]))
    losses = run.of("done")[0]["metrics"]["losses"]
    assert sorted(points) == list(range(1, len(losses) + 1))
    assert [points[s]["train/loss"] for s in sorted(points)] == pytest.approx(losses, abs=1e-5)
    assert {"train/grad_norm", "train/tokens_per_s", "train/lr", "train/trained_tokens"} <= set(points[1])

"""SFT through the CLI, as the TS side runs it: events, loss, saves, resume after kill -9, SIGTERM cancel."""

import json
import shutil
import signal

import pytest
import torch
from safetensors.torch import load_file

from conftest import marker_spec, run_trainer
from pau_trainer.protocol import ExitCode

pytestmark = pytest.mark.model


def test_sft_lowers_the_loss_and_reports_the_wire_contract(marker_run):
    run, spec = marker_run
    start = run.of("start")[0]
    assert (start["total_steps"], start["resumed_from_step"], start["examples"]) == (9, 0, 3)
    assert run.steps() == list(range(1, 10))
    for p in run.of("progress"):
        assert {"step", "total", "loss", "tokens_per_s", "elapsed_s"} <= set(p)
        assert p["total"] == 9 and p["tokens_per_s"] > 0
    assert [s["step"] for s in run.of("saved")] == [3, 6, 9]
    done = run.of("done")[0]
    assert run.events[-1] == done
    m = done["metrics"]
    # each epoch visits the 3 examples once: the last epoch's mean loss is well below the first's
    losses = m["losses"]
    assert sum(losses[6:]) / 3 < 0.5 * (sum(losses[:3]) / 3), losses
    # the final save is complete, its DONE holds the adapter's sha256, and result.json repeats the event
    ckpt = done["checkpoint"]
    assert ckpt.endswith("step-000009")
    assert open(f"{ckpt}/DONE").read().strip() == done["sha256"]
    result = json.load(open(f"{spec['output_dir']}/result.json"))
    assert result["sha256"] == done["sha256"] and result["checkpoint"] == ckpt
    # keep_saves=2: only the last two complete saves remain
    assert sorted(p.name for p in (__import__("pathlib").Path(spec["output_dir"]) / "checkpoints").iterdir()) == [
        "step-000006",
        "step-000009",
    ]


def test_rerunning_a_finished_job_replays_done_without_training(marker_run, tmp_path):
    run, spec = marker_run
    again = run_trainer("sft", spec, tmp_path / "spec.json")
    assert again.rc == 0
    assert again.steps() == [] and again.of("done")[0]["sha256"] == run.of("done")[0]["sha256"]
    # the same output_dir with another spec is refused, not silently mixed
    other = run_trainer("sft", {**spec, "lr": 0.001}, tmp_path / "spec2.json")
    assert other.rc == ExitCode.INVALID_SPEC and other.of("error")[0]["code"] == "spec_mismatch"


def test_sigterm_then_kill9_then_resume_gives_the_uninterrupted_result(marker_run, smollm2, tmp_path):
    """Cancel (SIGTERM) after step 1, resume and kill -9 during step 4 (after the save at 3), resume again:
    no step runs twice after its save, the step count is the same, and the final adapter equals the
    uninterrupted run's (same seed, same data order, RNG restored)."""
    ref_run, _ = marker_run
    spec = marker_spec(smollm2, tmp_path / "out")
    a = run_trainer("sft", spec, tmp_path / "s.json", signal_on=lambda e: e["type"] == "progress", sig=signal.SIGTERM)
    assert a.rc == ExitCode.CANCELLED, a.stderr[-2000:]
    cancelled = a.of("cancelled")[0]
    # the step in progress when SIGTERM came is finished and saved, then the trainer stops
    assert cancelled["step"] == a.steps()[-1] and cancelled["checkpoint"].endswith(f"step-{cancelled['step']:06d}")
    assert a.of("saved")[-1]["step"] == cancelled["step"] and not a.of("done")

    b = run_trainer("sft", spec, tmp_path / "s.json", signal_on=lambda e: e["type"] == "saved" and e["step"] == 3)
    assert b.rc == -signal.SIGKILL
    assert b.of("start")[0]["resumed_from_step"] == cancelled["step"]
    assert b.steps()[0] == cancelled["step"] + 1

    c = run_trainer("sft", spec, tmp_path / "s.json")
    assert c.rc == 0, c.stderr[-2000:]
    assert c.of("start")[0]["resumed_from_step"] == 3
    assert c.steps() == list(range(4, 10))
    done = c.of("done")[0]
    assert done["steps"] == 9 and len(done["metrics"]["losses"]) == 9
    mine = load_file(done["adapter"])
    ref = load_file(ref_run.of("done")[0]["adapter"])
    assert mine.keys() == ref.keys()
    for k in ref:
        assert torch.allclose(mine[k], ref[k], atol=1e-5), k
    assert done["metrics"]["losses"] == pytest.approx(ref_run.of("done")[0]["metrics"]["losses"], abs=1e-4)


def test_incomplete_save_is_ignored(marker_run, tmp_path):
    """A save without DONE (kill -9 during the save) is not resumed from."""
    _, spec = marker_run
    out = tmp_path / "out"
    shutil.copytree(spec["output_dir"], out)
    (out / "result.json").unlink()
    shutil.rmtree(out / "checkpoints" / "step-000009")
    broken = out / "checkpoints" / "step-000008"
    broken.mkdir()
    (broken / "state.json").write_text("{half a file")
    # step-000006 is the last complete save: the job resumes there and redoes 7..9
    again = run_trainer("sft", {**spec, "output_dir": str(out)}, tmp_path / "s.json")
    assert again.rc == 0 and again.of("start")[0]["resumed_from_step"] == 6 and again.steps() == [7, 8, 9]
    assert not broken.exists()


def test_missing_and_corrupt_base_model_are_clear_errors(tmp_path, smollm2):
    spec = marker_spec(tmp_path / "nope.gguf", tmp_path / "out")
    r = run_trainer("sft", spec, tmp_path / "s.json")
    assert r.rc == ExitCode.BASE_MODEL
    err = r.of("error")[0]
    assert err["code"] == "base_model_missing" and "nope.gguf" in err["message"]

    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all")
    r = run_trainer("sft", marker_spec(bad, tmp_path / "out2"), tmp_path / "s2.json")
    assert r.rc == ExitCode.BASE_MODEL and r.of("error")[0]["code"] == "base_model_corrupt"

    r = run_trainer("sft", marker_spec(smollm2, tmp_path / "out3", base_model_sha256="0" * 64), tmp_path / "s3.json")
    assert r.rc == ExitCode.BASE_MODEL and "expected 000" in r.of("error")[0]["message"]


def test_bad_data_is_invalid_data(tmp_path, smollm2):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant"}]}) + "\n")
    r = run_trainer("sft", marker_spec(smollm2, tmp_path / "out", data=str(data)), tmp_path / "s.json")
    assert r.rc == ExitCode.INVALID_DATA
    assert f"{data}:1" in r.of("error")[0]["message"] and "needs content or tool_calls" in r.of("error")[0]["message"]

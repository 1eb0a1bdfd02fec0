"""grpo-update through the CLI on SmolLM2: advantages from rewards, ref/old log-probs, metrics, the adapter moves."""

import json
import shutil
import signal
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_tensorboard import job_scalars

from conftest import DATA, run_trainer
from pau_trainer.core_algos import aac_advantages
from pau_trainer.protocol import ExitCode

pytestmark = pytest.mark.model


def grpo_spec(smollm2, out, **over):
    spec = {
        "base_model": str(smollm2),
        "rollouts": str(DATA / "tiny_rollouts.jsonl"),
        "output_dir": str(out),
        "lr": 5e-4,
        "ppo_epochs": 2,
        "mini_batch_size": 2,
        "max_length": 160,
        "seed": 3,
        "save_every": 2,
        "kl_beta": 0.04,
        "advantage": {"mode": "mix"},
        "lora": {"rank": 4, "alpha": 8, "targets": ["q_proj", "v_proj"]},
    }
    spec.update(over)
    return spec


@pytest.fixture(scope="module")
def grpo_run(smollm2, smollm2_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("grpo")
    spec = grpo_spec(smollm2, d / "out")
    first = run_trainer(
        "grpo-update", spec, d / "spec.json", signal_on=lambda e: e["type"] == "saved", sig=signal.SIGTERM
    )
    # the resume runs here, not in a test, so every test below sees the finished update
    resumed = run_trainer("grpo-update", spec, d / "spec.json") if first.rc == ExitCode.CANCELLED else None
    return first, resumed, spec, d


def test_grpo_update_cancel_resume_and_metrics(grpo_run):
    first, run, _spec, d = grpo_run
    # SIGTERM after the first save (step 2): the step in progress when it arrives is finished and saved
    # (2, or 3 when the signal lands after step 3 began), then the trainer stops with exit 5
    assert first.rc == ExitCode.CANCELLED, first.stderr[-2000:]
    cancelled = first.of("cancelled")[0]["step"]
    assert cancelled in (2, 3) and first.of("saved")[-1]["step"] == cancelled and not first.of("done")
    assert run is not None and run.rc == 0, run.stderr[-2000:] if run else "no resume"
    assert run.of("start")[0]["resumed_from_step"] == cancelled and run.steps() == list(range(cancelled + 1, 5))
    for p in first.of("progress") + run.of("progress"):
        for k in ("loss", "pg_loss", "kl", "clip_frac", "adv_mean", "grad_norm", "tokens_per_s"):
            assert isinstance(p[k], float), (k, p)
    # the first step of the update starts at the old policy: ratio 1, nothing clipped, and with a fresh
    # adapter (B = 0) the policy equals the reference, so KL is 0
    p1 = first.of("progress")[0]
    assert (
        p1["ratio_mean"] == pytest.approx(1.0, abs=1e-4)
        and p1["clip_frac"] == 0.0
        and p1["kl"] == pytest.approx(0.0, abs=1e-6)
    )
    # later steps have moved away from the reference
    assert run.of("progress")[-1]["kl"] > 0
    # a fresh adapter adds exactly nothing: its old log-probs are the reference ones (copied, not recomputed)
    pre = torch.load(d / "out" / "precomputed.pt", weights_only=False)
    assert len(pre["old"]) == len(pre["ref"]) > 0 and all(torch.equal(o, r) for o, r in zip(pre["old"], pre["ref"]))
    done = run.of("done")[0]
    assert done["steps"] == 4 and len(done["metrics"]["history"]) == 4
    # TensorBoard beside the job: the two attempts' files read as one curve of the 4 steps
    points = job_scalars(d / "out")
    assert sorted(points) == [1, 2, 3, 4]
    for h in done["metrics"]["history"]:
        p = points[h["step"]]
        assert {"train/kl", "train/clip_frac", "train/adv_mean", "train/reward_mean", "train/tokens_per_s"} <= set(p)
        assert p["train/loss"] == pytest.approx(h["loss"], abs=1e-5) and p["train/kl"] == pytest.approx(
            h["kl"], abs=1e-5
        )


def test_grpo_advantages_follow_core_algos(grpo_run):
    _, _, spec, d = grpo_run
    result = json.load(open(d / "out" / "result.json"))
    rows = [json.loads(line) for line in open(spec["rollouts"])]
    want, _, _ = aac_advantages(
        [r["rewards"]["steps"] for r in rows], [r["rewards"]["outcome"] for r in rows], [r["group"] for r in rows]
    )
    got = result["metrics"]["advantages"]
    for r, w in zip(rows, want):
        assert got[r["id"]] == pytest.approx(w, abs=1e-5)


def test_grpo_changes_only_the_adapter_and_starts_from_init_adapter(grpo_run, smollm2, tmp_path):
    _, _, _, d = grpo_run
    result = json.load(open(d / "out" / "result.json"))
    w = load_file(result["adapter"])
    # LoRA B starts at zero; after the update it is not
    assert any(k.endswith("lora_B.weight") and w[k].abs().sum() > 0 for k in w)
    # a next epoch continues from this checkpoint (init_adapter); its reference is still the base
    nxt = run_trainer(
        "grpo-update",
        grpo_spec(smollm2, tmp_path / "next", init_adapter=result["checkpoint"], ppo_epochs=1, max_steps=1),
        tmp_path / "s.json",
    )
    assert nxt.rc == 0, nxt.stderr[-2000:]
    p = nxt.of("progress")[0]
    assert p["kl"] > 0  # the policy (previous adapter) already differs from the reference (base)
    # ... so its old log-probs were computed with the adapter, not copied from the reference
    pre = torch.load(tmp_path / "next" / "precomputed.pt", weights_only=False)
    assert any(not torch.equal(o, r) for o, r in zip(pre["old"], pre["ref"]))
    w2 = load_file(nxt.of("done")[0]["adapter"])
    assert w2.keys() == w.keys() and any(not torch.equal(w2[k], w[k]) for k in w)


# The next two check the trainer's data checks and its no-op rule, not what a model computes: they run on the
# tiny random Llama with SmolLM2's vocabulary and template (conftest.tiny_smollm2; the same tokenizer, so the
# same re-tokenisation), which the 2-process tests build anyway.
def test_the_next_epoch_carries_the_optimiser_state_and_refuses_a_missing_or_foreign_one(grpo_run, smollm2, tmp_path):
    _, _, _, d = grpo_run
    result = json.load(open(d / "out" / "result.json"))
    init = Path(result["checkpoint"])
    before = torch.load(init / "optimizer.pt", weights_only=False)
    steps_before = {int(v["step"]) for v in before["optimizer"]["state"].values()}
    assert steps_before == {4}  # every parameter took the first job's 4 Adam steps
    nxt = run_trainer(
        "grpo-update",
        grpo_spec(
            smollm2, tmp_path / "carried", init_adapter=str(init), init_optimizer=True, ppo_epochs=1, max_steps=1
        ),
        tmp_path / "s.json",
    )
    assert nxt.rc == 0, nxt.stderr[-2000:]
    assert any("optimiser state carried" in e["message"] for e in nxt.of("info"))
    after = torch.load(Path(nxt.of("done")[0]["checkpoint"]) / "optimizer.pt", weights_only=False)
    # Adam's step count went on (4 -> 5): its bias correction continues instead of a fresh sign step
    assert {int(v["step"]) for v in after["optimizer"]["state"].values()} == {5}
    # another learning rate: the state belongs to another spec, refused naming the file (not retryable)
    other = run_trainer(
        "grpo-update",
        grpo_spec(smollm2, tmp_path / "other", init_adapter=str(init), init_optimizer=True, lr=1e-4, max_steps=1),
        tmp_path / "s2.json",
    )
    assert other.rc == ExitCode.INVALID_SPEC
    err = other.of("error")[0]
    assert err["code"] == "spec_mismatch" and str(init / "optimizer.pt") in err["message"] and "lr" in err["message"]
    # the file missing: refused naming it
    bare = tmp_path / "bare"
    shutil.copytree(init, bare)
    (bare / "optimizer.pt").unlink()
    missing = run_trainer(
        "grpo-update",
        grpo_spec(smollm2, tmp_path / "missing", init_adapter=str(bare), init_optimizer=True, max_steps=1),
        tmp_path / "s3.json",
    )
    assert missing.rc == ExitCode.INVALID_DATA
    assert str(bare / "optimizer.pt") in missing.of("error")[0]["message"]


def test_sampled_ids_train_with_no_retokenised_tokens_and_report_the_gap(tiny_smollm2, tokenizer, tmp_path):
    from pau_trainer.chat import ChatEncoder

    enc = ChatEncoder(tokenizer)
    rows = [json.loads(line) for line in open(DATA / "tiny_rollouts.jsonl")]
    for row in rows:
        sampled = []
        for i, m in enumerate(row["messages"]):
            if m["role"] != "assistant":
                continue
            prompt, whole = enc.render_request(row["messages"], i, row.get("tools"))
            ids = tokenizer(whole[len(prompt) :].split("<|im_end|>")[0], add_special_tokens=False)["input_ids"]
            sampled.append({"ids": ids, "logprobs": [-0.5] * len(ids)})
        row["sampled"] = sampled
    f = tmp_path / "r.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = run_trainer(
        "grpo-update",
        grpo_spec(tiny_smollm2, tmp_path / "o", rollouts=str(f), tis_cap=2, max_steps=1, ppo_epochs=1),
        tmp_path / "s.json",
    )
    assert r.rc == 0, r.stderr[-2000:]
    m = r.of("done")[0]["metrics"]
    assert m["retokenised_policy_tokens"] == 0 and m["sampled_policy_tokens"] > 0
    assert m["sampler_tokens"] == m["sampled_policy_tokens"] and m["tis_cap"] == 2
    assert m["sampler_abs_logprob_gap"] > 0 and 0 <= m["sampler_outside_clip"] <= 1
    assert any("sampler-trainer gap" in e["message"] for e in r.of("info"))
    # the same rollouts without sampled ids: every policy token re-tokenised, no gap to report
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({k: v for k, v in row.items() if k != "sampled"}) + "\n" for row in rows))
    p = run_trainer(
        "grpo-update",
        grpo_spec(tiny_smollm2, tmp_path / "p", rollouts=str(plain), max_steps=1, ppo_epochs=1),
        tmp_path / "s2.json",
    )
    assert p.rc == 0, p.stderr[-2000:]
    pm = p.of("done")[0]["metrics"]
    assert pm["sampled_policy_tokens"] == 0 and pm["retokenised_policy_tokens"] == p.of("start")[0]["policy_tokens"]
    # the ids were the tokenizer's own, so both train the same tokens; the sampled run's others are the
    # end-of-turn tokens the template closes each message with (trained, with no sampler log-prob)
    assert r.of("start")[0]["policy_tokens"] == p.of("start")[0]["policy_tokens"] > m["sampled_policy_tokens"]
    assert pm["sampler_tokens"] == 0 and pm["tis_cap"] is None


def test_sampled_ids_of_another_text_are_refused_naming_the_rollout(tiny_smollm2, tokenizer, tmp_path):
    row = json.loads(open(DATA / "tiny_rollouts.jsonl").readline())
    other = tokenizer("f triples x.", add_special_tokens=False)["input_ids"]
    row["sampled"] = [None, {"ids": other, "logprobs": [-0.1] * len(other)}]
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(row) + "\n")
    r = run_trainer("grpo-update", grpo_spec(tiny_smollm2, tmp_path / "o", rollouts=str(f)), tmp_path / "s.json")
    assert r.rc == ExitCode.INVALID_DATA
    msg = r.of("error")[0]["message"]
    assert f"{f}:1 (rollout {row['id']})" in msg and "message 4" in msg and "f triples x." in msg


def test_all_zero_advantages_with_a_fresh_adapter_skip_the_update(tiny_smollm2, tmp_path):
    # every group scored alike: outcome advantages are all 0, and a fresh adapter is the reference, so no
    # step could move the policy; the trainer saves the fresh adapter as the checkpoint, 0 steps
    rows = [json.loads(line) for line in open(DATA / "tiny_rollouts.jsonl")]
    for r in rows:
        r["rewards"]["outcome"] = 3.0
    f = tmp_path / "r.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = run_trainer(
        "grpo-update",
        grpo_spec(tiny_smollm2, tmp_path / "o", rollouts=str(f), advantage={"mode": "outcome"}),
        tmp_path / "s.json",
    )
    assert r.rc == 0, r.stderr[-2000:]
    assert r.of("start")[0]["total_steps"] == 0 and not r.of("progress")
    done = r.of("done")[0]
    assert done["steps"] == 0 and done["metrics"]["skipped"] == "all advantages zero"
    assert all(v == 0 for adv in done["metrics"]["advantages"].values() for v in adv)
    w = load_file(done["adapter"])
    assert any(k.endswith("lora_B.weight") for k in w) and all(
        w[k].abs().sum() == 0 for k in w if k.endswith("lora_B.weight")
    )
    # one group with different rewards: that group's advantages are not 0, and the update runs
    rows[0]["rewards"]["outcome"] = 5.0
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r2 = run_trainer(
        "grpo-update",
        grpo_spec(tiny_smollm2, tmp_path / "o2", rollouts=str(f), advantage={"mode": "outcome"}, max_steps=1),
        tmp_path / "s2.json",
    )
    assert r2.rc == 0, r2.stderr[-2000:]
    assert r2.of("done")[0]["steps"] == 1 and r2.steps() == [1]


def test_reference_old_and_new_logprobs_are_taken_at_the_sampling_temperature(tiny_smollm2, tmp_path):
    # rollouts sampled at T = 0.7: the reference (adapter off) and old log-probs precomputed, and the step's new
    # ones, are all log_softmax(logits / 0.7), so with a fresh adapter (policy = reference) the ratio is 1 exactly
    from pau_trainer import grpo
    from pau_trainer.cancel import Cancel
    from pau_trainer.job import Job
    from pau_trainer.protocol import parse_spec

    spec = parse_spec("grpo-update", grpo_spec(tiny_smollm2, tmp_path / "o", temperature=0.7, max_steps=1))
    assert spec.temperature == 0.7
    job = Job("grpo-update", spec, Cancel(), spec.rollouts)
    _, encoder = job.load_base()
    rollouts = grpo.load_rollouts(spec, encoder)
    job.build_model(1)
    pre = grpo.precompute(job, rollouts, spec.temperature)
    r = rollouts[0]
    with torch.no_grad(), job.model.disable_adapter():
        logits = job.model(input_ids=r.input_ids.to(job.device)).logits.float().cpu()
    ids = r.input_ids[:, 1:].unsqueeze(-1)
    want = torch.log_softmax(logits / 0.7, -1)[:, :-1].gather(-1, ids).squeeze(-1)
    assert torch.allclose(pre["ref"][0], want, atol=1e-5)
    assert not torch.allclose(
        pre["ref"][0], torch.log_softmax(logits, -1)[:, :-1].gather(-1, ids).squeeze(-1), atol=1e-3
    )
    assert torch.equal(pre["old"][0], pre["ref"][0])  # a fresh adapter: copied
    batch = list(range(len(rollouts)))[: spec.mini_batch_size]
    metrics = grpo.step_backward(job, spec, rollouts, batch, pre)
    # the token-weighted mean ratio of the step: 1 when new and old are taken at the same temperature
    assert metrics["ratio"] == pytest.approx(1.0, abs=1e-5)
    assert metrics["kl"] == pytest.approx(0.0, abs=1e-6)


def test_a_temperature_that_is_not_positive_is_refused():
    from pau_trainer.protocol import TrainerError, parse_spec

    for bad in (0, -0.5):
        with pytest.raises(TrainerError, match=r"spec.temperature must be > 0"):
            parse_spec("grpo-update", {"base_model": "/m", "output_dir": "/o", "rollouts": "/r", "temperature": bad})


def test_policy_shift_measures_kl_of_the_trained_adapter_and_zero_for_a_fresh_one(grpo_run, smollm2, tmp_path):
    _, _, spec, d = grpo_run
    result = json.load(open(d / "out" / "result.json"))
    shift = {
        "base_model": str(smollm2),
        "adapter_dir": result["checkpoint"],
        "episodes": spec["rollouts"],
        "max_length": 160,
    }
    run = run_trainer("policy-shift", shift, tmp_path / "shift.json")
    assert run.rc == 0, run.stderr[-2000:]
    m = run.of("done")[0]["metrics"]
    rows = [json.loads(line) for line in open(spec["rollouts"])]
    assert m["episodes"] == len(rows) and m["tokens"] > 0
    assert m["kl_mean"] > 0 and set(m["per_episode"]) == {r["id"] for r in rows}
    first_save = sorted((d / "out" / "checkpoints").iterdir())[0]
    # a fresh adapter (LoRA B = 0) is the base: KL exactly 0
    fresh = tmp_path / "fresh"
    shutil.copytree(first_save, fresh)
    w = load_file(str(fresh / "adapter_model.safetensors"))
    from safetensors.torch import save_file

    save_file(
        {k: (torch.zeros_like(v) if "lora_B" in k else v) for k, v in w.items()},
        str(fresh / "adapter_model.safetensors"),
    )
    zero = run_trainer("policy-shift", {**shift, "adapter_dir": str(fresh)}, tmp_path / "zero.json")
    assert zero.rc == 0, zero.stderr[-2000:]
    assert zero.of("done")[0]["metrics"]["kl_mean"] == pytest.approx(0.0, abs=1e-7)
    # a checkpoint trained on another base than the one the gate compares with is refused, named
    other_base = tmp_path / "other-base"
    shutil.copytree(first_save, other_base)
    state = json.loads((other_base / "state.json").read_text())
    (other_base / "state.json").write_text(json.dumps({**state, "base_sha256": "0" * 64}))
    foreign = run_trainer("policy-shift", {**shift, "adapter_dir": str(other_base)}, tmp_path / "foreign.json")
    assert (
        foreign.rc == ExitCode.INVALID_SPEC
        and "trained on base sha256 000000000000" in foreign.of("error")[0]["message"]
    )
    # an adapter directory that is not a complete checkpoint is refused, named
    bad = run_trainer("policy-shift", {**shift, "adapter_dir": str(tmp_path / "nope")}, tmp_path / "bad.json")
    assert bad.rc == ExitCode.INVALID_DATA and "nope" in bad.of("error")[0]["message"]

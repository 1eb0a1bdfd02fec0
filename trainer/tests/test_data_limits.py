"""What training may not take as sampled: turns cut at max_tokens (their end-of-turn token was never sampled)
and conversations longer than max_length (dropped and counted, never head-kept; more than 1 % refuses the
job). Through the real SmolLM2 tokenizer and template, in-process, and one refusal through the trainer CLI."""

import json

import pytest

from conftest import DATA, marker_spec, run_trainer
from pau_trainer.chat import ChatEncoder, too_long_refusal
from pau_trainer.grpo import load_rollouts
from pau_trainer.protocol import GrpoSpec, SftSpec, TrainerError
from pau_trainer.sft import load_examples
from test_chat import CONV, masked_text

pytestmark = pytest.mark.model


def test_length_cut_turn_trains_its_text_not_the_end_of_turn_token(tokenizer):
    enc_ = ChatEncoder(tokenizer)
    whole = enc_.encode(CONV)
    cut = enc_.encode(CONV, cut_messages={5})
    # the text was sampled and is trained; the template's <|im_end|> after it was never sampled
    assert masked_text(tokenizer, whole, 5) == "f squares x.<|im_end|>"
    assert masked_text(tokenizer, cut, 5) == "f squares x."
    assert (cut.cut_eos_masked, cut.cut_whole_masked) == (1, 0)
    # the other assistant turn is untouched, and the token sequence is the same (only the mask differs)
    assert masked_text(tokenizer, cut, 2) == masked_text(tokenizer, whole, 2)
    assert cut.input_ids == whole.input_ids
    assert sum(whole.mask) - sum(cut.mask) == 1


def test_length_cut_must_name_an_assistant_message(tokenizer):
    with pytest.raises(TrainerError, match="length_cut names message 1"):
        ChatEncoder(tokenizer).encode(CONV, cut_messages={1})


def _write(tmp_path, name, rows):
    f = tmp_path / name
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(f)


def test_sft_data_carries_length_cut_into_the_mask(tokenizer, tmp_path):
    data = _write(tmp_path, "d.jsonl", [{"messages": CONV, "length_cut": [5]}, {"messages": CONV}])
    examples, stats = load_examples(
        SftSpec(base_model="/m", output_dir="/o", data=data, max_length=512), ChatEncoder(tokenizer)
    )
    assert sum(examples[0].mask) == sum(examples[1].mask) - 1
    assert stats["length_cut_eos_masked"] == 1
    bad = _write(tmp_path, "bad.jsonl", [{"messages": CONV, "length_cut": "5"}])
    with pytest.raises(TrainerError, match="length_cut must be a list"):
        load_examples(SftSpec(base_model="/m", output_dir="/o", data=bad, max_length=512), ChatEncoder(tokenizer))


def test_too_long_examples_are_dropped_and_counted_not_cut(tokenizer, tmp_path):
    enc_ = ChatEncoder(tokenizer)
    n = len(enc_.encode(CONV).input_ids)
    short = [{"role": "user", "content": "Hi."}, {"role": "assistant", "content": "Hello."}]
    # 1 too long among 101: 0.99 %, under the limit: dropped, counted, the rest trains
    rows = [{"messages": CONV}] + [{"messages": short}] * 100
    examples, stats = load_examples(
        SftSpec(base_model="/m", output_dir="/o", data=_write(tmp_path, "a.jsonl", rows), max_length=n - 1), enc_
    )
    assert len(examples) == 100 and stats["dropped_too_long"] == 1 and stats["longest_tokens"] == n
    assert all(not e.truncated for e in examples)
    # 2 of 101 (1.98 %): the job refuses, saying how many, the limit and what to do
    rows = [{"messages": CONV}] * 2 + [{"messages": short}] * 99
    with pytest.raises(
        TrainerError, match=r"2 of 101 examples \(2.0 %, more than 1 %\) are longer than max_length"
    ) as e:
        load_examples(
            SftSpec(base_model="/m", output_dir="/o", data=_write(tmp_path, "b.jsonl", rows), max_length=n - 1), enc_
        )
    assert e.value.code == "invalid_data" and "Raise max_length" in e.value.message
    assert too_long_refusal(1, 100, 10, 20, "x", "w") is None


def test_too_long_rollout_is_not_trained_but_counts_in_its_group(tokenizer, tmp_path):
    enc_ = ChatEncoder(tokenizer)
    rows = [json.loads(line) for line in open(DATA / "tiny_rollouts.jsonl")]
    lengths = [len(enc_.encode(r["messages"]).input_ids) for r in rows]
    spec = GrpoSpec(
        base_model="/m", output_dir="/o", rollouts=str(DATA / "tiny_rollouts.jsonl"), max_length=max(lengths) - 1
    )
    spec = GrpoSpec(**{**spec.__dict__, "advantage": type(spec.advantage)(mode="outcome")})
    # one of 4 too long: 25 % > 1 %, refused
    with pytest.raises(TrainerError, match=r"1 of 4 rollouts .* longer than max_length"):
        load_rollouts(spec, enc_)
    # within the limit (1 of 101): the long one has no trained tokens, and its reward still shapes its group
    many = rows + [{**rows[1], "id": f"x{k}", "group": "other"} for k in range(97)]
    long_i = lengths.index(max(lengths))
    spec2 = GrpoSpec(**{**spec.__dict__, "rollouts": _write(tmp_path, "r.jsonl", many)})
    out = load_rollouts(spec2, enc_)
    assert out[long_i].truncated and out[long_i].policy_tokens == 0 and float(out[long_i].advantages.abs().sum()) == 0
    assert sum(r.truncated for r in out) == 1
    g = rows[long_i]["group"]
    same = [r for r in out[:4] if r.group == g and not r.truncated]
    assert same and any(r.message_advantages[0] != 0 for r in same)


def test_the_trainer_cli_refuses_a_job_with_too_many_long_examples(smollm2, tmp_path):
    # the marker data at a max_length nothing fits: exit 4 (invalid_data), before any step
    r = run_trainer("sft", marker_spec(smollm2, tmp_path / "out", max_length=16), tmp_path / "spec.json")
    assert r.rc == 4, r.stderr[-2000:]
    err = r.of("error")[0]
    assert err["code"] == "invalid_data" and "longer than max_length 16" in err["message"]
    assert r.of("progress") == []

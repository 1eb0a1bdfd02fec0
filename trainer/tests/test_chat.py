"""Assistant-only masks through the real SmolLM2 tokenizer and chat template (and a tool-aware template)."""

import json

import pytest

from pau_trainer.chat import ChatEncoder, encode_policy_row
from pau_trainer.protocol import TrainerError

pytestmark = pytest.mark.model

CONV = [
    {"role": "system", "content": "You probe methods."},
    {"role": "user", "content": "Describe f(x)."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "call_method", "arguments": '{"arguments": "3"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "TOOL-RESULT-9"},
    {"role": "user", "content": "USER-NUDGE"},
    {"role": "assistant", "content": "f squares x."},
]

# A ChatML template that renders tool calls and tool results natively (the shape of Qwen2.5's).
TOOL_TEMPLATE = (
    "{% for m in messages %}"
    "{% if m.role == 'assistant' %}<|im_start|>assistant\n{{ m.content }}"
    '{% for tc in m.tool_calls or [] %}<tool_call>\n{"name": "{{ tc.function.name }}", "arguments": '
    "{{ tc.function.arguments | tojson }}}\n</tool_call>{% endfor %}<|im_end|>\n"
    "{% elif m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n</tool_response><|im_end|>\n"
    "{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def masked_text(tok, enc, which=None):
    return tok.decode(
        [t for t, m, o in zip(enc.input_ids, enc.mask, enc.message_index) if m and (which is None or o == which)]
    )


def test_smollm2_template_lacks_tool_calls_so_they_are_written_into_content(tokenizer):
    enc_ = ChatEncoder(tokenizer)
    assert enc_.native_tool_calls is False
    enc = enc_.encode(CONV)
    full = tokenizer.decode(enc.input_ids)
    call = '<tool_call>\n{"name": "call_method", "arguments": {"arguments": "3"}}\n</tool_call><|im_end|>'
    assert masked_text(tokenizer, enc, 2) == call
    assert masked_text(tokenizer, enc, 5) == "f squares x.<|im_end|>"
    assert masked_text(tokenizer, enc) == call + "f squares x.<|im_end|>"
    # everything else is context only: system, user turns, the tool result, the assistant headers
    assert "TOOL-RESULT-9" in full and "USER-NUDGE" in full
    trained = masked_text(tokenizer, enc)
    for context in ("TOOL-RESULT-9", "USER-NUDGE", "You probe methods", "<|im_start|>assistant"):
        assert context not in trained
    assert set(enc.message_index) == {-1, 2, 5}


def test_native_tool_template_masks_the_call_and_not_the_result(tokenizer):
    tokenizer.chat_template, saved = TOOL_TEMPLATE, tokenizer.chat_template
    try:
        enc_ = ChatEncoder(tokenizer)
        assert enc_.native_tool_calls is True
        enc = enc_.encode(CONV)
    finally:
        tokenizer.chat_template = saved
    full = tokenizer.decode(enc.input_ids)
    assert "<tool_response>\nTOOL-RESULT-9\n</tool_response>" in full
    assert (
        masked_text(tokenizer, enc, 2)
        == '<tool_call>\n{"name": "call_method", "arguments": {"arguments": "3"}}\n</tool_call><|im_end|>'
    )
    assert "TOOL-RESULT-9" not in masked_text(tokenizer, enc)


def test_selected_policy_messages_only_and_truncation(tokenizer):
    enc_ = ChatEncoder(tokenizer)
    only_last = enc_.encode(CONV, train_messages={5})
    assert masked_text(tokenizer, only_last) == "f squares x.<|im_end|>"
    full = enc_.encode(CONV)
    short = enc_.encode(CONV, max_length=len(full.input_ids) - 4)
    assert short.truncated and len(short.input_ids) == len(full.input_ids) - 4
    assert short.input_ids == full.input_ids[:-4] and short.mask == full.mask[:-4]


def test_invalid_messages_are_invalid_data(tokenizer):
    enc_ = ChatEncoder(tokenizer)
    for bad, needle in [
        ([], "non-empty list"),
        ([{"role": "robot", "content": "x"}], "role must be one of"),
        ([{"role": "user", "content": ["part"]}], "content must be a string or null"),
        ([{"role": "assistant", "content": None}], "needs content or tool_calls"),
        (
            [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y", "tool_calls": [{"function": {}}]}],
            "function.name is required",
        ),
    ]:
        with pytest.raises(TrainerError) as e:
            enc_.encode(bad)
        assert e.value.code == "invalid_data" and needle in e.value.message, (bad, e.value.message)
    with pytest.raises(TrainerError, match="not an assistant message"):
        enc_.encode(CONV, train_messages={1})


def test_a_lines_policy_messages_strict_for_the_update_and_lenient_for_the_shift(tokenizer):
    enc_ = ChatEncoder(tokenizer)
    # Default: every assistant message; strict returns them sorted, and both encode the same segments.
    policy, segments = encode_policy_row(enc_, {"messages": CONV, "policy_messages": [5, 2]}, "f:1", None, strict=True)
    assert policy == [2, 5] and segments == encode_policy_row(enc_, {"messages": CONV}, "f:1", None, strict=False)[1]
    none = {"messages": CONV, "policy_messages": []}
    assert encode_policy_row(enc_, none, "f:2", None, strict=False)[0] == []  # the shift measures nothing there
    with pytest.raises(TrainerError, match="f:2: policy_messages must be a non-empty list"):
        encode_policy_row(enc_, none, "f:2", None, strict=True)
    with pytest.raises(TrainerError, match="f:3: policy_messages has duplicates"):
        encode_policy_row(enc_, {"messages": CONV, "policy_messages": [5, 5]}, "f:3", None, strict=True)
    with pytest.raises(TrainerError, match=r"f:4: .*not an assistant message"):
        encode_policy_row(enc_, {"messages": CONV, "policy_messages": [1]}, "f:4", None, strict=False)


def test_arguments_that_are_not_json_objects_stay_strings(tokenizer):
    enc_ = ChatEncoder(tokenizer)
    conv = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "call_method", "arguments": "{broken"}}
            ],
        },
    ]
    text = masked_text(tokenizer, enc_.encode(conv))
    assert json.dumps({"name": "call_method", "arguments": "{broken"}) in text


# TOOL_TEMPLATE plus the tools' names in a system turn (where Qwen2.5's and Qwen3's templates list them)
TOOLS_IN_SYSTEM = (
    "{% if tools %}<|im_start|>system\nTOOLS: {{ tools | map(attribute='function.name') | join(',') }}<|im_end|>\n{% endif %}"
    + TOOL_TEMPLATE
)
EXPLORE = [
    {"type": "function", "function": {"name": "call_method"}},
    {"type": "function", "function": {"name": "submit_description"}},
]
SUBMIT = EXPLORE[1:]
SERVED = [
    {"role": "user", "content": "Describe f(x)."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "call_method", "arguments": '{"arguments": "3"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "9"},
    {
        "role": "assistant",
        "content": "one more",
        "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "call_method", "arguments": '{"arguments": "-3"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c2", "content": "9"},
    {"role": "user", "content": "FINAL-ASK"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c3",
                "type": "function",
                "function": {"name": "submit_description", "arguments": '{"description": "x*x"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c3", "content": "ok"},
    {"role": "user", "content": "IN-WORDS"},
    {"role": "assistant", "content": "f squares x."},
]
SERVED_LINE = {
    "messages": SERVED,
    "tool_sets": [EXPLORE, SUBMIT],
    "requests": [
        {"message": 1, "tools": 0},
        {"message": 3, "tools": 0},
        {"message": 6, "tools": 1},
        {"message": 9, "tools": None},
    ],
}


def test_each_message_is_trained_in_its_own_request(tokenizer):
    from pau_trainer.chat import line_requests

    tokenizer.chat_template, saved = TOOLS_IN_SYSTEM, tokenizer.chat_template
    try:
        enc_ = ChatEncoder(tokenizer)
        segments = enc_.encode_served(SERVED, line_requests(SERVED_LINE, "line"))
        # the two exploration requests extend each other; the final ask (submit only) and the re-ask (no
        # tools) each start a sequence of their own
        assert [s.messages for s in segments] == [(1, 3), (6,), (9,)]
        for s in segments:
            for i in s.messages:
                tools = {1: EXPLORE, 3: EXPLORE, 6: SUBMIT, 9: None}[i]
                prompt = tokenizer.apply_chat_template(
                    enc_.normalise(SERVED[:i]), tools=tools, tokenize=False, add_generation_prompt=True
                )
                first = s.message_index.index(i)
                # the context of each trained message is exactly its request's prompt
                assert s.input_ids[:first] == tokenizer(prompt, add_special_tokens=False)["input_ids"], i
        assert tokenizer.decode(segments[1].input_ids).startswith(
            "<|im_start|>system\nTOOLS: submit_description<|im_end|>"
        )
        assert "TOOLS" not in tokenizer.decode(segments[2].input_ids)
        assert masked_text(tokenizer, segments[2]) == "f squares x.<|im_end|>"
        # a line too long in any of its sequences is too long as a whole (dropped whole, never cut)
        longest = max(len(s.input_ids) for s in segments)
        cut = enc_.encode_served(SERVED, line_requests(SERVED_LINE, "line"), max_length=longest - 1)
        assert all(s.truncated and s.full_length == longest for s in cut)
        # the old rendering of this line (one sequence, every tool) is what encode still gives hand-written data
        one = enc_.encode(SERVED, tools=EXPLORE)
        assert one.messages == (1, 3, 6, 9)
    finally:
        tokenizer.chat_template = saved


def test_served_lines_are_checked(tokenizer):
    from pau_trainer.chat import line_requests

    enc_ = ChatEncoder(tokenizer)
    for bad, needle in [
        ({**SERVED_LINE, "tools": EXPLORE}, "not both"),
        ({**SERVED_LINE, "requests": [{"message": 1, "tools": 2}]}, "must index tool_sets"),
        ({**SERVED_LINE, "requests": [{"message": 1, "tools": 0, "x": 1}]}, "must be {"),
        ({"messages": SERVED, "tool_sets": [EXPLORE]}, 'without "requests"'),
    ]:
        with pytest.raises(TrainerError, match=needle):
            line_requests(bad, "line")
    with pytest.raises(TrainerError, match="not an assistant message"):
        enc_.encode_served(SERVED, line_requests({**SERVED_LINE, "requests": [{"message": 2, "tools": 0}]}, "line"))
    with pytest.raises(TrainerError, match="has no request"):
        enc_.encode_served(
            SERVED,
            line_requests({**SERVED_LINE, "requests": [{"message": 1, "tools": 0}]}, "line"),
            train_messages={1, 3},
        )
    # reasoning the template cannot show cannot be trained as generated (SmolLM2's template ignores it)
    with pytest.raises(TrainerError, match="reasoning_content"):
        enc_.encode(
            [
                {"role": "user", "content": "u"},
                {"role": "assistant", "content": "a", "reasoning_content": "hidden thought"},
            ]
        )


def test_grpo_rollout_segments_share_the_rollout(tokenizer, tmp_path):
    """A rollout served in three requests becomes three sequences with its id, group and per-message
    advantages; mini-batches and the too-long counts still count rollouts."""
    from pau_trainer.grpo import length_counts, load_rollouts
    from pau_trainer.protocol import AdvantageSpec, GrpoSpec

    tokenizer.chat_template, saved = TOOLS_IN_SYSTEM, tokenizer.chat_template
    try:
        rows = [
            {
                **SERVED_LINE,
                "id": f"r{k}",
                "group": "g",
                "rewards": {"outcome": float(k), "steps": [0.5, 0.2 * k, None, None]},
            }
            for k in range(2)
        ]
        f = tmp_path / "r.jsonl"
        f.write_text("".join(json.dumps(r) + "\n" for r in rows))
        spec = GrpoSpec(
            base_model="/m", output_dir="/o", rollouts=str(f), max_length=4096, advantage=AdvantageSpec(mode="aac")
        )
        out = load_rollouts(spec, ChatEncoder(tokenizer))
    finally:
        tokenizer.chat_template = saved
    assert [(r.id, r.line) for r in out] == [("r0", 0), ("r0", 0), ("r0", 0), ("r1", 1), ("r1", 1), ("r1", 1)]
    for r in out:
        # every trained token carries its message's advantage, the same list on each of the rollout's sequences
        assert r.message_advantages == out[3 * r.line].message_advantages
    # the final description (message 9, the third sequence) carries the outcome advantage: r1 up, r0 down
    assert out[2].message_advantages[3] < 0 < out[5].message_advantages[3]
    assert float(out[5].advantages.max()) == pytest.approx(out[5].message_advantages[3], abs=1e-6)
    assert length_counts(out)["dropped_too_long"] == 0


def test_sft_examples_are_their_lines_sequences(tokenizer, tmp_path):
    from pau_trainer.protocol import SftSpec
    from pau_trainer.sft import load_examples

    tokenizer.chat_template, saved = TOOLS_IN_SYSTEM, tokenizer.chat_template
    try:
        f = tmp_path / "d.jsonl"
        f.write_text(json.dumps(SERVED_LINE) + "\n" + json.dumps({"messages": CONV}) + "\n")
        examples, stats = load_examples(
            SftSpec(base_model="/m", output_dir="/o", data=str(f), max_length=4096), ChatEncoder(tokenizer)
        )
    finally:
        tokenizer.chat_template = saved
    assert [e.messages for e in examples] == [(1, 3), (6,), (9,), (2, 5)]
    assert stats["examples"] == 2 and stats["segments"] == 4 and stats["dropped_too_long"] == 0


def _sampled_text(encoder, messages, i):
    """What the server sampled for assistant message i: its rendering up to the end-of-turn token."""
    prompt, whole = encoder.render_request(messages, i, None)
    return whole[len(prompt) :].split("<|im_end|>")[0]


def test_sampled_ids_are_trained_as_sampled_and_keep_their_logprobs(tokenizer):
    enc = ChatEncoder(tokenizer)
    text = _sampled_text(enc, CONV, 5)
    # one id per character: decodes to the same text but is not how the tokenizer splits it
    ids = [tokenizer.convert_tokens_to_ids(c if c != " " else "Ġ") for c in text]
    assert ids != tokenizer(text, add_special_tokens=False)["input_ids"]
    lps = [-0.25 - k / 100 for k in range(len(ids))]
    row = {"messages": CONV, "policy_messages": [2, 5], "sampled": [None, {"ids": ids, "logprobs": lps}]}
    _, (seg,) = encode_policy_row(enc, row, "line 1", None, strict=True)
    own = [t for t, o in enumerate(seg.message_index) if o == 5]
    # the sampled ids in order, then the end-of-turn token the template closes the message with (no log-prob)
    assert [seg.input_ids[t] for t in own] == [*ids, tokenizer.convert_tokens_to_ids("<|im_end|>")]
    assert [seg.sampler_logprobs[t] for t in own] == [*lps, None]
    assert all(seg.mask[t] == 1 for t in own)
    # message 2 had none recorded: re-tokenised from its text, and counted as such
    assert seg.retokenised == (2,) and all(
        seg.sampler_logprobs[t] is None for t, o in enumerate(seg.message_index) if o == 2
    )
    assert tokenizer.decode(seg.input_ids) == tokenizer.decode(
        encode_policy_row(enc, {**row, "sampled": None}, "l", None, strict=True)[1][0].input_ids
    )


def test_sampled_ids_that_are_not_the_message_are_refused(tokenizer):
    enc = ChatEncoder(tokenizer)
    other = tokenizer("f cubes x.", add_special_tokens=False)["input_ids"]
    row = {
        "messages": CONV,
        "policy_messages": [2, 5],
        "sampled": [None, {"ids": other, "logprobs": [-0.1] * len(other)}],
    }
    with pytest.raises(TrainerError, match=r"line 1: message 5: its sampled ids decode to 'f cubes x\.'"):
        encode_policy_row(enc, row, "line 1", None, strict=True)


@pytest.mark.parametrize(
    ("sampled", "says"),
    [
        ([{"ids": [1], "logprobs": [-0.1]}], "one entry"),
        ([None, {"ids": [], "logprobs": []}], "non-empty list of token ids"),
        ([None, {"ids": [1, 2], "logprobs": [-0.1]}], "one finite log-prob"),
        ([None, {"ids": [1], "logprobs": [0.5]}], "one finite log-prob"),
        ([None, {"ids": [-3], "logprobs": [-0.5]}], "token ids"),
        ([None, "ids"], "token ids"),
    ],
)
def test_malformed_sampled_entries_are_invalid_data(tokenizer, sampled, says):
    row = {"messages": CONV, "policy_messages": [2, 5], "sampled": sampled}
    with pytest.raises(TrainerError, match=says):
        encode_policy_row(ChatEncoder(tokenizer), row, "line 1", None, strict=True)

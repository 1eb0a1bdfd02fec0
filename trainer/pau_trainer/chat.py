"""Chat messages -> token ids + a mask of the assistant's own tokens, through the model's chat template.

The template is the one inside the base GGUF (what llama.cpp applies when it serves the model).

Train what was served: each trained assistant message is trained in the request it was generated from. A
line names, per assistant message i, the tools its request was sent with (`requests` + `tool_sets`, see
`line_requests`); the request's messages are messages[:i] as sent (`served_context`: the harness never sends
reasoning back, so earlier assistant messages lose their `reasoning_content`). Rendering every request on its
own would cost tokens quadratic in the turns, so requests are packed into *segments*: one token sequence
trains several messages when each request's rendering (prompt + its message) starts with the previous one's
text up to the end of that message. Explore turns served with the same tools extend each other, so a
transcript is typically one segment for its exploration and one more for each request whose prompt differs
(the final ask with the submit tool only or none, Qwen3 turns whose earlier <think> blocks the template drops).
For each message of a segment, the text before its span is exactly the prompt of its own request.

Spans inside one request: render(ctx, add_generation_prompt=True) ends where the message starts,
render(ctx + [message]) where it ends (trailing whitespace excluded). A request whose rendering fails that
(the prompt is not a prefix of prompt + message) is rejected rather than guessed at. The mask covers the
message's reasoning (when the template renders it), content, its tool calls as the template writes them and
the end-of-turn token; the header ("<|im_start|>assistant\\n") is not trained on. System, user and tool
messages are never in the mask.

Length-cut turns (`cut_messages`: assistant messages whose generation stopped at max_tokens, finish_reason
"length"): the policy sampled their text but never the end-of-turn token the template closes them with, so
that token is not trained (the trailing special tokens of the span are left out of the mask; the text before
them was sampled and is trained). When the span does not end in a special token, the template's closing
text cannot be told from the sampled text, and the whole message is left out.

Sampled ids (`sampled`, GRPO rollouts): a message whose server recorded the token ids it sampled is trained as
those ids, not as its text re-tokenised (a text can tokenise otherwise than it was sampled). The prompt before
it is tokenised on its own, as the server tokenised the request; the ids must decode to the start of the
message as the template renders it (else the line is refused, naming the message), and what the template
writes after them (the end-of-turn token the server does not return) is tokenised as text. Each sampled
token keeps the server's log-prob (`Encoded.sampler_logprobs`) for the importance-sampling correction.

Tool calls: OpenAI messages carry `arguments` as a JSON string; templates (and llama.cpp, which parses it
before applying the template) expect an object, so a string that parses as a JSON object is passed as one;
anything else stays a string. For templates that do not render tool calls at all (SmolLM2's), they are
written into the assistant's content in the Hermes/Qwen form `<tool_call>\\n{"name": .., "arguments": ..}
\\n</tool_call>`, so no call is silently dropped from training. (Served data never has this case: llama.cpp
parses no tool calls for such a template, the harness reads the calls from the text.)
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from .protocol import TrainerError


class ChatTokenizer(Protocol):
    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> Any: ...

    def __call__(self, text: str, **kwargs: Any) -> Any: ...

    def decode(self, token_ids: list[int], **kwargs: Any) -> str: ...


Message = dict[str, Any]


@dataclass
class Encoded:
    input_ids: list[int]
    # 1 where the token is part of an assistant message that is trained on (SFT: all; GRPO: the policy's)
    mask: list[int]
    # for each token, the index of the message whose trained span holds it, else -1
    message_index: list[int]
    truncated: bool
    # tokens of the whole rendered conversation, before any truncation to max_length
    full_length: int = 0
    # length-cut messages whose end-of-turn token(s) were left out, and those left out whole
    cut_eos_masked: int = 0
    cut_whole_masked: int = 0
    # the trained messages whose spans this sequence holds (a line may need several sequences: encode_served)
    messages: tuple[int, ...] = ()
    # per token, the sampler's log-prob where the token is one the server sampled and recorded, else None
    sampler_logprobs: list[float | None] = field(default_factory=list)
    # the trained messages of this sequence that had no recorded sample and were re-tokenised from their text
    retokenised: tuple[int, ...] = ()


@dataclass(frozen=True)
class Sampled:
    """What the server sampled for one assistant message: its token ids and each one's log-prob."""

    ids: list[int]
    logprobs: list[float]


def _parse_arguments(args: Any) -> Any:
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            return args
        return parsed if isinstance(parsed, dict) else args
    return args


def _tool_call_text(tc: dict[str, Any]) -> str:
    fn = tc.get("function", tc)
    args = _parse_arguments(fn.get("arguments", {}))
    return (
        "<tool_call>\n" + json.dumps({"name": fn.get("name"), "arguments": args}, ensure_ascii=False) + "\n</tool_call>"
    )


class ChatEncoder:
    """Renders and tokenises conversations for one tokenizer (probes the template's tool support once)."""

    def __init__(self, tokenizer: ChatTokenizer) -> None:
        self.tok = tokenizer
        self.native_tool_calls = self._probe_tool_calls()
        self.special_ids = _special_ids(tokenizer)

    def _render(self, messages: list[Message], tools: list[Any] | None, gen: bool) -> str:
        if not messages:
            return ""
        kwargs: dict[str, Any] = {"tokenize": False, "add_generation_prompt": gen}
        if tools:
            kwargs["tools"] = tools
        out = self.tok.apply_chat_template(messages, **kwargs)
        if not isinstance(out, str):
            raise TypeError("apply_chat_template(tokenize=False) did not return a string")
        return out

    def _probe_tool_calls(self) -> bool:
        probe = [
            {"role": "user", "content": "u"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "zz_probe_fn", "arguments": {"x": 1}}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "zz_probe_result"},
        ]
        try:
            text = self._render(probe, None, False)
        except Exception:
            return False
        return "zz_probe_fn" in text and "zz_probe_result" in text

    def normalise(self, messages: list[Message]) -> list[Message]:
        """Messages as the template receives them (see the module doc for tool calls)."""
        out: list[Message] = []
        for m in messages:
            m = copy.deepcopy(m)
            if m.get("content") is None:
                m["content"] = ""
            calls = m.get("tool_calls") or []
            if m.get("role") == "assistant" and calls:
                if self.native_tool_calls:
                    for tc in calls:
                        if isinstance(tc.get("function"), dict):
                            tc["function"]["arguments"] = _parse_arguments(tc["function"].get("arguments"))
                else:
                    text = "\n".join(_tool_call_text(tc) for tc in calls)
                    m["content"] = (m["content"] + "\n" + text) if m["content"] else text
                    del m["tool_calls"]
            elif "tool_calls" in m and not calls:
                del m["tool_calls"]
            out.append(m)
        return out

    def encode(
        self,
        messages: list[Message],
        tools: list[Any] | None = None,
        train_messages: set[int] | None = None,
        max_length: int | None = None,
        cut_messages: set[int] | None = None,
    ) -> Encoded:
        """One conversation whose every request had the same tools, rendered as one sequence (hand-written
        data, checks). A conversation that needs more than one segment is refused: use encode_served."""
        validate_messages(messages)
        if train_messages is None:
            train_messages = {i for i, m in enumerate(messages) if m.get("role") == "assistant"}
        requests = [ServedRequest(i, tools) for i, m in enumerate(messages) if m.get("role") == "assistant"]
        segments = self.encode_served(messages, requests, train_messages, None, cut_messages)
        if len(segments) != 1:
            raise TrainerError(
                "invalid_data",
                f"the conversation needs {len(segments)} segments (its requests' prompts "
                "do not extend each other); encode it with its requests",
            )
        enc = segments[0]
        if max_length is not None and len(enc.input_ids) > max_length:
            enc.truncated = True
            enc.input_ids, enc.mask, enc.message_index, enc.sampler_logprobs = (
                enc.input_ids[:max_length],
                enc.mask[:max_length],
                enc.message_index[:max_length],
                enc.sampler_logprobs[:max_length],
            )
        return enc

    def render_request(self, messages: list[Message], i: int, tools: list[Any] | None) -> tuple[str, str]:
        """(prompt, prompt + message i) of the request that generated assistant message i, as rendered text."""
        ctx = self.normalise(served_context(messages, i))
        own = self.normalise([messages[i]])
        return self._render(ctx, tools, True), self._render(ctx + own, tools, False)

    def encode_served(
        self,
        messages: list[Message],
        requests: list[ServedRequest],
        train_messages: set[int] | None = None,
        max_length: int | None = None,
        cut_messages: set[int] | None = None,
        sampled: dict[int, Sampled] | None = None,
    ) -> list[Encoded]:
        """The token sequences (segments, see the module doc) that train each of `train_messages` (default:
        every message with a request) in its own request. A line longer than max_length in any segment is
        marked truncated on every segment (the caller drops it whole) and not cut. A message in `sampled` is
        trained as the ids its server sampled (see the module doc), the others as their text re-tokenised."""
        validate_messages(messages)
        for i in cut_messages or ():
            if not 0 <= i < len(messages) or messages[i].get("role") != "assistant":
                raise TrainerError("invalid_data", f"length_cut names message {i}, which is not an assistant message")
        by_message: dict[int, ServedRequest] = {}
        for r in requests:
            if not 0 <= r.message < len(messages) or messages[r.message].get("role") != "assistant":
                raise TrainerError(
                    "invalid_data", f"requests names message {r.message}, which is not an assistant message"
                )
            if r.message in by_message:
                raise TrainerError("invalid_data", f"requests names message {r.message} twice")
            by_message[r.message] = r
        if train_messages is None:
            train_messages = set(by_message)
        for i in train_messages:
            if not 0 <= i < len(messages) or messages[i].get("role") != "assistant":
                raise TrainerError(
                    "invalid_data", f"message {i} is not an assistant message; only those can be trained on"
                )
            if i not in by_message:
                raise TrainerError(
                    "invalid_data", f"message {i} is trained but has no request (what it was generated from)"
                )
        # (segment text, [(span start, span end, message index)])
        segments: list[tuple[str, list[tuple[int, int, int]]]] = []
        for i in sorted(train_messages):
            prompt, whole = self.render_request(messages, i, by_message[i].tools)
            if not whole.startswith(prompt):
                raise TrainerError(
                    "invalid_data",
                    f"the chat template is not prefix-stable at message {i}: cannot tell which tokens are the assistant's",
                )
            end = len(whole.rstrip())
            reasoning = messages[i].get("reasoning_content")
            if isinstance(reasoning, str) and reasoning.strip() and reasoning.strip() not in whole[len(prompt) : end]:
                raise TrainerError(
                    "invalid_data",
                    f"message {i} has reasoning_content that the chat template does not render; "
                    "its generated text cannot be reproduced",
                )
            if segments:
                text, spans = segments[-1]
                if whole.startswith(text[: spans[-1][1]]):
                    segments[-1] = (whole, [*spans, (len(prompt), end, i)])
                    continue
            segments.append((whole, [(len(prompt), end, i)]))
        for i in sampled or {}:
            if i not in train_messages:
                raise TrainerError("invalid_data", f"message {i} has sampled ids but is not trained")
        out = [self._tokenise(text, spans, cut_messages or set(), sampled or {}) for text, spans in segments]
        longest = max((len(e.input_ids) for e in out), default=0)
        too_long = max_length is not None and longest > max_length
        for e in out:
            e.full_length = longest
            e.truncated = too_long
        return out

    def _tokenise(
        self, text: str, spans: list[tuple[int, int, int]], cut_messages: set[int], sampled: dict[int, Sampled]
    ) -> Encoded:
        ids: list[int] = []
        owner: list[int] = []
        sampler: list[float | None] = []

        def add_text(a: int, b: int) -> None:
            # text[a:b] tokenised on its own; a token is a message's when it starts inside the message's span
            if b <= a:
                return
            enc = self.tok(text[a:b], add_special_tokens=False, return_offsets_mapping=True)
            for t, (s, e) in zip(enc["input_ids"], enc["offset_mapping"]):
                o = -1
                if e > s:
                    o = next((i for sa, sb, i in spans if sa <= a + s < sb), -1)
                ids.append(int(t))
                owner.append(o)
                sampler.append(None)

        # A sampled message's ids replace its text: the prompt before it is tokenised on its own, as the
        # server tokenised the request, and what the template writes after the sampled text (the end-of-turn
        # token, which the server does not return) is tokenised as text and trained as the message's.
        pos = 0
        for a, _, i in spans:
            smp = sampled.get(i)
            if smp is None:
                continue
            said = self.tok.decode(smp.ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
            if not said or not text.startswith(said, a):
                raise TrainerError(
                    "invalid_data",
                    f"message {i}: its sampled ids decode to {said[:60]!r}, which is not the message's text as "
                    f"rendered ({text[a : a + 60]!r}); refusing to train tokens that were not sampled",
                )
            add_text(pos, a)
            ids.extend(smp.ids)
            owner.extend([i] * len(smp.ids))
            sampler.extend(smp.logprobs)
            pos = a + len(said)
        add_text(pos, len(text))
        mask = [1 if o >= 0 else 0 for o in owner]
        eos_masked = whole_masked = 0
        for i in sorted(cut_messages & {i for _, _, i in spans}):
            own = [t for t in range(len(ids)) if owner[t] == i]
            end = len(own)
            while end > 0 and ids[own[end - 1]] in self.special_ids:
                end -= 1
            drop = own[end:] if end < len(own) else own
            if end < len(own):
                eos_masked += 1
            else:
                whole_masked += 1
            for t in drop:
                mask[t] = 0
                owner[t] = -1
        return Encoded(
            input_ids=ids,
            mask=mask,
            message_index=owner,
            truncated=False,
            full_length=len(ids),
            cut_eos_masked=eos_masked,
            cut_whole_masked=whole_masked,
            messages=tuple(i for _, _, i in spans),
            sampler_logprobs=sampler,
            retokenised=tuple(i for _, _, i in spans if i not in sampled),
        )


@dataclass(frozen=True)
class ServedRequest:
    """The request that generated assistant message `message`: messages[:message] as sent, with these tools."""

    message: int
    tools: list[Any] | None


def served_context(messages: list[Message], i: int) -> list[Message]:
    """The messages the request of assistant message i was sent: those before it, as the harness sends them
    (reasoning is stored with each assistant message but never sent back: activities/episode/transcript.ts)."""
    out = []
    for m in messages[:i]:
        if m.get("role") == "assistant" and "reasoning_content" in m:
            m = {k: v for k, v in m.items() if k != "reasoning_content"}
        out.append(m)
    return out


def line_requests(row: dict[str, Any], where: str) -> list[ServedRequest]:
    """The served requests of a data line. With `requests` (the harness's lines): [{"message": i, "tools": k |
    null}], k indexing `tool_sets` (lists of OpenAI tool definitions), null = sent without tools. Without it
    (hand-written data): every assistant message's request had the line's `tools`."""
    messages = row.get("messages")
    tools = row.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise TrainerError("invalid_data", f'{where}: "tools" must be a list')
    raw = row.get("requests")
    if raw is None:
        if "tool_sets" in row:
            raise TrainerError("invalid_data", f'{where}: "tool_sets" without "requests"')
        if not isinstance(messages, list):
            return []
        return [
            ServedRequest(i, tools)
            for i, m in enumerate(messages)
            if isinstance(m, dict) and m.get("role") == "assistant"
        ]
    if tools is not None:
        raise TrainerError("invalid_data", f'{where}: give either "tools" or "requests" with "tool_sets", not both')
    sets = row.get("tool_sets", [])
    if not isinstance(sets, list) or not all(isinstance(t, list) for t in sets):
        raise TrainerError("invalid_data", f'{where}: "tool_sets" must be a list of tool lists')
    if not isinstance(raw, list) or not raw:
        raise TrainerError("invalid_data", f'{where}: "requests" must be a non-empty list')
    out = []
    for j, r in enumerate(raw):
        w = f"{where}: requests[{j}]"
        if not isinstance(r, dict) or set(r) - {"message", "tools"}:
            raise TrainerError("invalid_data", f'{w} must be {{"message": index, "tools": tool_sets index or null}}')
        i, k = r.get("message"), r.get("tools")
        if not isinstance(i, int) or isinstance(i, bool):
            raise TrainerError("invalid_data", f"{w}.message must be a message index")
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(sets)):
            raise TrainerError("invalid_data", f"{w}.tools must index tool_sets (0..{len(sets) - 1}) or be null")
        out.append(ServedRequest(i, sets[k] if k is not None and sets[k] else None))
    return out


# A job refuses when more than this share of its examples / rollouts would not fit max_length: dropping them
# silently would train on a biased subset (the long transcripts are the ones that reach a description).
MAX_TOO_LONG_SHARE = 0.01


def too_long_refusal(
    dropped: int, total: int, max_length: int, longest: int, what: str, where: str
) -> TrainerError | None:
    """The invalid_data error when more than MAX_TOO_LONG_SHARE of `total` would be dropped as too long."""
    if total == 0 or dropped / total <= MAX_TOO_LONG_SHARE:
        return None
    return TrainerError(
        "invalid_data",
        f"{where}: {dropped} of {total} {what} ({100 * dropped / total:.1f} %, more than {100 * MAX_TOO_LONG_SHARE:g} %) "
        f"are longer than max_length {max_length} tokens (the longest has {longest}); they would be dropped, not "
        f"cut. Raise max_length (--max-length; llama.cpp serves 8192 tokens per slot) or shorten the episodes.",
    )


def _special_ids(tok: Any) -> set[int]:
    """Ids of the tokenizer's special tokens (end-of-turn markers such as <|im_end|> among them)."""
    ids = set(getattr(tok, "all_special_ids", None) or [])
    decoder = getattr(tok, "added_tokens_decoder", None) or {}
    for i, t in decoder.items():
        if getattr(t, "special", False):
            ids.add(int(i))
    return ids


def length_cut_of(row: dict[str, Any], where: str) -> set[int]:
    """The `length_cut` field of a data line: indices of its assistant messages cut at max_tokens."""
    v = row.get("length_cut")
    if v is None:
        return set()
    if not isinstance(v, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in v):
        raise TrainerError("invalid_data", f"{where}: length_cut must be a list of message indices")
    return set(v)


def sampled_of(row: dict[str, Any], policy: list[int], where: str) -> dict[int, Sampled]:
    """The `sampled` field of a rollout line: per policy message (in `policy_messages` order) the token ids its
    server sampled and their log-probs, or null where the server recorded none (the message is re-tokenised)."""
    v = row.get("sampled")
    if v is None:
        return {}
    if not isinstance(v, list) or len(v) != len(policy):
        raise TrainerError("invalid_data", f"{where}: sampled must have one entry (or null) per policy message")
    out: dict[int, Sampled] = {}
    for i, e in zip(policy, v):
        if e is None:
            continue
        w = f"{where}: sampled entry of message {i}"
        ids, lps = (e.get("ids"), e.get("logprobs")) if isinstance(e, dict) else (None, None)
        if (
            not isinstance(ids, list)
            or not ids
            or not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in ids)
        ):
            raise TrainerError("invalid_data", f'{w}: "ids" must be a non-empty list of token ids')
        if (
            not isinstance(lps, list)
            or len(lps) != len(ids)
            or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x <= 0 for x in lps
            )
        ):
            raise TrainerError("invalid_data", f'{w}: "logprobs" must be one finite log-prob (<= 0) per id')
        out[i] = Sampled([int(t) for t in ids], [float(x) for x in lps])
    return out


def encode_policy_row(
    encoder: ChatEncoder, row: dict[str, Any], where: str, max_length: int | None, *, strict: bool
) -> tuple[list[int], list[Encoded]]:
    """A rollout's or episode's line as the update and the shift measure read it: its policy messages
    (`policy_messages`, else every assistant message) and the served segments that train them. `strict` (the
    update's rollouts): at least one policy message, none twice, returned sorted."""
    msgs = row.get("messages")
    policy = row.get("policy_messages")
    if policy is None and isinstance(msgs, list):
        policy = [i for i, m in enumerate(msgs) if isinstance(m, dict) and m.get("role") == "assistant"]
    if not isinstance(policy, list) or (strict and not policy) or not all(isinstance(i, int) for i in policy):
        what = "a non-empty list" if strict else "a list"
        raise TrainerError("invalid_data", f"{where}: policy_messages must be {what} of message indices")
    sampled = sampled_of(row, policy, where)
    if strict:
        if len(set(policy)) != len(policy):
            raise TrainerError("invalid_data", f"{where}: policy_messages has duplicates")
        policy = sorted(policy)
    try:
        segments = encoder.encode_served(
            msgs,
            line_requests(row, where),
            train_messages=set(policy),
            max_length=max_length,
            cut_messages=length_cut_of(row, where),
            sampled=sampled,
        )
    except TrainerError as e:
        raise TrainerError(e.code, f"{where}: {e.message}") from e
    return policy, segments


_ROLES = {"system", "user", "assistant", "tool"}


def validate_messages(messages: Any, where: str = "messages") -> None:
    """OpenAI chat format, strictly enough that a bad line fails here with its reason, not in a template."""
    if not isinstance(messages, list) or not messages:
        raise TrainerError("invalid_data", f"{where} must be a non-empty list")
    for i, m in enumerate(messages):
        w = f"{where}[{i}]"
        if not isinstance(m, dict):
            raise TrainerError("invalid_data", f"{w} must be an object")
        role = m.get("role")
        if role not in _ROLES:
            raise TrainerError("invalid_data", f"{w}.role must be one of {sorted(_ROLES)}, got {role!r}")
        content = m.get("content")
        if content is not None and not isinstance(content, str):
            raise TrainerError(
                "invalid_data", f"{w}.content must be a string or null (content parts are not supported)"
            )
        reasoning = m.get("reasoning_content")
        if reasoning is not None and (role != "assistant" or not isinstance(reasoning, str)):
            raise TrainerError("invalid_data", f"{w}.reasoning_content must be a string on an assistant message")
        calls = m.get("tool_calls")
        if calls is not None:
            if role != "assistant" or not isinstance(calls, list):
                raise TrainerError("invalid_data", f"{w}.tool_calls must be a list on an assistant message")
            for j, tc in enumerate(calls):
                fn = tc.get("function") if isinstance(tc, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                    raise TrainerError("invalid_data", f"{w}.tool_calls[{j}].function.name is required")
                if not isinstance(fn.get("arguments", ""), (str, dict)):
                    raise TrainerError(
                        "invalid_data", f"{w}.tool_calls[{j}].function.arguments must be a string or object"
                    )
        if role == "tool" and not isinstance(content, str):
            raise TrainerError("invalid_data", f"{w}: a tool message needs string content")
        if role == "assistant" and not content and not calls and not reasoning:
            raise TrainerError("invalid_data", f"{w}: an assistant message needs content or tool_calls")

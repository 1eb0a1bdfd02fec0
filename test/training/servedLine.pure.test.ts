// The trainer line as served (pure): each assistant message gets the tools of the request it was generated
// from (the ledger), the distinct tool lists once; reasoning and length cuts ride along; a request whose
// messages are not the conversation before its message leaves the episode out.
import { describe, expect, it } from 'vitest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { servedLine } from '../../domain/training/servedLine';
import { rolloutLine } from '../../domain/training/grpoRollouts';
import { SAMPLED_TOKEN_PARAMS, sampledTokensOf } from '../../domain/training/sampledTokens';
import { trainerLineSchema } from '../../domain/training/trainerProtocol';
import { SUBMIT_ONLY, TOOLS } from '../../domain/episode/prompts';

const conv: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'probe f' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'call_method', arguments: '{"arguments":"1"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: '2' },
  { role: 'user', content: 'final ask' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c2', type: 'function', function: { name: 'submit_description', arguments: '{"description":"d"}' } }],
  },
  { role: 'tool', tool_call_id: 'c2', content: 'ok' },
  { role: 'user', content: 'say it in words' },
  { role: 'assistant', content: 'f doubles x.' },
];
const req = (n: number, tools?: unknown) => ({ model: 'm', messages: conv.slice(0, n), ...(tools ? { tools } : {}), temperature: 0 });

describe('servedLine', () => {
  it('names each request tools once per distinct list, none for a tool-less request', () => {
    const r = servedLine(conv, [
      { request: req(2, TOOLS) },
      { request: req(5, SUBMIT_ONLY), finishReason: 'length' },
      { request: req(8), reasoningContent: 'think first' },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.line.tool_sets).toEqual([TOOLS, SUBMIT_ONLY]);
    expect(r.line.requests).toEqual([
      { message: 2, tools: 0 },
      { message: 5, tools: 1 },
      { message: 8, tools: null },
    ]);
    expect(r.line.length_cut).toEqual([5]);
    expect(r.line.messages[8]).toEqual({ role: 'assistant', content: 'f doubles x.', reasoning_content: 'think first' });
    expect(r.line).not.toHaveProperty('tools');
  });

  it('leaves out an episode whose request is missing or was not the conversation before its message', () => {
    expect(servedLine(conv, [{ request: req(2, TOOLS) }, {}, { request: req(8) }])).toEqual({ ok: false, reason: 'assistant message 5: no ledger request' });
    const edited = [...conv.slice(0, 4), { role: 'user' as const, content: 'another final ask' }];
    const r = servedLine(conv, [{ request: req(2, TOOLS) }, { request: { messages: edited, tools: SUBMIT_ONLY } }, { request: req(8) }]);
    expect(r).toEqual({ ok: false, reason: "assistant message 5: its request's messages are not the conversation before it" });
    expect(servedLine(conv, [{ request: req(2, TOOLS) }])).toMatchObject({ ok: false });
  });
});

describe('sampled tokens', () => {
  const completion = (content: unknown) => ({ choices: [{ message: { content: 'x' }, logprobs: { content } }] });
  it("reads llama.cpp's ids and vLLM's token_id:N beside each log-prob; anything less is none recorded", () => {
    expect(
      sampledTokensOf(
        completion([
          { id: 12, token: 'f', logprob: -0.5 },
          { id: 7, token: ' x', logprob: 0 },
        ]),
      ),
    ).toEqual({ ids: [12, 7], logprobs: [-0.5, 0] });
    expect(sampledTokensOf(completion([{ token: 'token_id:31', logprob: -1.25 }]))).toEqual({ ids: [31], logprobs: [-1.25] });
    // the scripted mock's logprobs (text tokens, no ids), none asked, an empty list, one token without an id, a positive log-prob
    expect(sampledTokensOf(completion([{ token: 'f', logprob: 0, top_logprobs: [] }]))).toBeNull();
    expect(sampledTokensOf({ choices: [{ message: { content: 'x' } }] })).toBeNull();
    expect(sampledTokensOf(completion([]))).toBeNull();
    expect(
      sampledTokensOf(
        completion([
          { id: 1, logprob: -0.1 },
          { token: 'y', logprob: -0.1 },
        ]),
      ),
    ).toBeNull();
    expect(sampledTokensOf(completion([{ id: 1, logprob: 0.3 }]))).toBeNull();
    expect(sampledTokensOf('not a completion')).toBeNull();
  });

  it('rides from the served turns into the rollout line, one entry per policy message, written only when some turn has one', () => {
    const s = { ids: [3, 4], logprobs: [-0.1, -0.2] };
    const turns = [{ request: req(2, TOOLS), sampled: s }, { request: req(5, SUBMIT_ONLY) }, { request: req(8), sampled: null }];
    const r = servedLine(conv, turns);
    if (!r.ok) throw new Error(r.reason);
    expect(r.sampled).toEqual([s, null, null]);
    const line = rolloutLine('ep1', 'm1', r.line, [0.5, null, null], 3, [], r.sampled);
    expect(line.sampled).toEqual([s, null, null]);
    expect(trainerLineSchema.parse(line).sampled).toEqual([s, null, null]);
    expect(rolloutLine('ep1', 'm1', r.line, [0.5, null, null], 3, [], [null, null, null])).not.toHaveProperty('sampled');
    expect(() => trainerLineSchema.parse({ ...line, sampled: [{ ids: [], logprobs: [] }, null, null] })).toThrow();
  });

  it('the rollouts ask their server for the sampled ids', () => {
    expect(SAMPLED_TOKEN_PARAMS).toEqual({ logprobs: true, top_logprobs: 1, return_tokens_as_token_ids: true });
  });
});

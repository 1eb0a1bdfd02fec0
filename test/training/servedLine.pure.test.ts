// The trainer line as served (pure): each assistant message gets the tools of the request it was generated
// from (the ledger), the distinct tool lists once; reasoning and length cuts ride along; a request whose
// messages are not the conversation before its message leaves the episode out.
import { describe, expect, it } from 'vitest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { servedLine } from '../../domain/training/servedLine';
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

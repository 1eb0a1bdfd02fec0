// How a model reply becomes a turn (domain/episode/reply.ts): every problem kind, every answer kind, the
// step indices, the ids, the calls read from text, and the assistant step that records it all.
import { describe, expect, it } from 'vitest';
import { interpretReply, readsTextCalls, uniqueToolCallIds, type ModelReply, type ReplyContext } from '../../domain/episode/reply';
import { EMPTY_SUBMISSION_OBSERVATION, SUBMITTED_OBSERVATION } from '../../domain/episode/prompts';

type ToolCall = ModelReply['message']['toolCalls'][number];

function reply(message: Partial<ModelReply['message']>): ModelReply {
  return {
    message: { content: null, toolCalls: [], ...message },
    finishReason: 'stop',
    tokensIn: 11,
    tokensOut: 7,
    latencyMs: 42,
    cached: false,
    requestHash: 'h1',
  };
}
const call = (args: string, id = ''): ToolCall => ({ id, name: 'call_method', arguments: JSON.stringify({ arguments: args }) });
const submit = (description: string, id = ''): ToolCall => ({ id, name: 'submit_description', arguments: JSON.stringify({ description }) });
const ctx: ReplyContext = { assistantIdx: 5, mode: 'explore', callsLeft: 3, maxCalls: 20, protocol: 'native' };
const problemNames = (rows: ReturnType<typeof interpretReply>['rows']) => rows.filter((r) => r.kind === 'problem').map((r) => r.call?.problem);

describe('interpretReply: answers', () => {
  it('tool_calls: valid calls get the indices after the reply, run in order, and are stored pending', () => {
    const t = interpretReply(reply({ toolCalls: [call('1', 'a'), call('2', 'b')] }), ctx);
    expect(t.answer).toBe('tool_calls');
    expect(t.calls).toEqual([
      { stepIdx: 6, toolCallId: 'a', arguments: '1' },
      { stepIdx: 7, toolCallId: 'b', arguments: '2' },
    ]);
    expect(t.rows.map((r) => [r.idx, r.kind])).toEqual([
      [5, 'assistant'],
      [6, 'call'],
      [7, 'call'],
    ]);
    expect(t.rows[1]).toMatchObject({ call: { tool: 'call_method', arguments: '1', source: 'native' }, observation: null });
    expect(t.nextIdx).toBe(8);
    expect(t.problems).toBe(0);
    expect(t.text).toBeUndefined();
  });

  it('submitted: the trimmed description is the text; the submit step says it was received', () => {
    const t = interpretReply(reply({ toolCalls: [submit('  Adds one.  ', 's')] }), ctx);
    expect(t).toMatchObject({ answer: 'submitted', text: 'Adds one.', calls: [], problems: 0, nextIdx: 7 });
    expect(t.rows[1]).toMatchObject({
      kind: 'submit',
      call: { tool: 'submit_description', description: '  Adds one.  ' },
      observation: { text: SUBMITTED_OBSERVATION },
    });
  });

  it('empty_submission: an empty description is answered with a request for one, not counted as a problem', () => {
    const t = interpretReply(reply({ toolCalls: [submit('   ')] }), ctx);
    expect(t).toMatchObject({ answer: 'empty_submission', problems: 0 });
    expect(t.rows[1]).toMatchObject({ kind: 'submit', observation: { text: EMPTY_SUBMISSION_OBSERVATION } });
  });

  it('problems_only: tool calls that all became problems', () => {
    const t = interpretReply(reply({ toolCalls: [{ id: 'x', name: 'call_method', arguments: '{oops' }] }), ctx);
    expect(t).toMatchObject({ answer: 'problems_only', problems: 1, calls: [] });
  });

  it('text, refusal, empty: a reply without calls is classified by its text', () => {
    expect(interpretReply(reply({ content: '  It adds one to x.  ' }), { ...ctx, mode: 'answer' })).toMatchObject({
      answer: 'text',
      text: 'It adds one to x.',
    });
    expect(interpretReply(reply({ content: 'anything', refusal: 'no' }), { ...ctx, mode: 'answer' })).toMatchObject({ answer: 'refusal' });
    expect(interpretReply(reply({ content: "I'm sorry, but I can't help with that." }), { ...ctx, mode: 'answer' }).answer).toBe('refusal');
    const empty = interpretReply(reply({ content: '   ' }), ctx);
    expect(empty).toMatchObject({ answer: 'empty', nextIdx: 6, problems: 0 });
    expect(empty.text).toBeUndefined();
    expect(empty.rows).toHaveLength(1);
  });
});

describe('interpretReply: problems', () => {
  it('malformed_json, missing_argument, unknown_tool: each one step, shown back, not executed', () => {
    const t = interpretReply(
      reply({
        toolCalls: [
          { id: 'a', name: 'call_method', arguments: '{"arguments": ' },
          { id: 'b', name: 'call_method', arguments: '{"x": 1}' },
          { id: 'c', name: 'run_python', arguments: '{}' },
        ],
      }),
      ctx,
    );
    expect(problemNames(t.rows)).toEqual(['malformed_json', 'missing_argument', 'unknown_tool']);
    expect(t.problems).toBe(3);
    expect(t.rows[3]).toMatchObject({ idx: 8, call: { tool: 'run_python', toolCallId: 'c', source: 'native' }, observation: { executed: false } });
    expect(t.rows[3]?.observation?.text).toContain('no tool named "run_python"');
  });

  it('second_submission: only the first non-empty description counts', () => {
    const t = interpretReply(reply({ toolCalls: [submit('First.'), submit('Second.')] }), ctx);
    expect(t).toMatchObject({ answer: 'submitted', text: 'First.', problems: 1 });
    expect(problemNames(t.rows)).toEqual(['second_submission']);
    expect(t.rows[2]?.call?.tool).toBe('submit_description');
  });

  it('not_run_submitted: calls beside a native submission are not run', () => {
    const t = interpretReply(reply({ toolCalls: [call('1'), submit('Adds one.')] }), ctx);
    expect(t).toMatchObject({ answer: 'submitted', calls: [], problems: 1 });
    expect(problemNames(t.rows)).toEqual(['not_run_submitted']);
  });

  it('over_budget: calls past the budget, and any call outside exploring, name the budget', () => {
    const t = interpretReply(reply({ toolCalls: [call('1'), call('2'), call('3')] }), { ...ctx, callsLeft: 2 });
    expect(t.calls.map((c) => c.arguments)).toEqual(['1', '2']);
    expect(problemNames(t.rows)).toEqual(['over_budget']);
    expect(t.rows[3]?.observation?.text).toBe('Not run: the call budget (20 calls) is used up.');
    expect(t.answer).toBe('tool_calls');
    const final = interpretReply(reply({ toolCalls: [call('1')] }), { ...ctx, mode: 'final' });
    expect(final).toMatchObject({ answer: 'problems_only', calls: [] });
    expect(problemNames(final.rows)).toEqual(['over_budget']);
  });

  it('unparsable_tool_call: text that tried to call and could not be read is one problem, and counts no calls', () => {
    const t = interpretReply(reply({ content: 'CALL f([1, 2' }), { ...ctx, method: { entryPoint: 'f', signature: 'def f(xs):' } });
    expect(problemNames(t.rows)).toEqual(['unparsable_tool_call']);
    expect(t.rows[1]?.call).toMatchObject({ tool: '(text)', source: 'unparsable', toolCallId: 'text_5_0' });
    expect(t.rows[0]?.agentMessage).toMatchObject({ toolCallSource: 'unparsable', callCount: 0 });
    expect(t.answer).toBe('problems_only');
  });

  it('description_with_calls: while calls can run, a description written beside text calls waits', () => {
    const method = { entryPoint: 'f', signature: 'def f(x):' };
    const text = 'CALL f(1)\nDESCRIPTION: Adds one.';
    const t = interpretReply(reply({ content: text }), { ...ctx, method });
    expect(t.answer).toBe('tool_calls');
    expect(problemNames(t.rows)).toEqual(['description_with_calls']);
    // With no calls left the description counts, and the call beside it is not run.
    const last = interpretReply(reply({ content: text }), { ...ctx, callsLeft: 0, method });
    expect(last).toMatchObject({ answer: 'submitted', text: 'Adds one.' });
    expect(problemNames(last.rows)).toEqual(['not_run_submitted']);
  });
});

describe('interpretReply: calls read from text, and the assistant step', () => {
  it('labels text calls with the method name and ids them text_<idx>_<n>', () => {
    const t = interpretReply(reply({ content: 'CALL inc(3)' }), { ...ctx, method: { entryPoint: 'inc', signature: 'def inc(x):' } });
    expect(t.calls).toEqual([{ stepIdx: 6, toolCallId: 'text_5_0', arguments: '3' }]);
    expect(t.rows[1]?.call).toMatchObject({ source: 'text', label: 'inc(3)' });
    expect(t.rows[0]?.agentMessage).toMatchObject({ toolCallSource: 'text', callCount: 1, toolCalls: [] });
  });

  it('reads no text calls when answering in context, or when native calls came', () => {
    expect(readsTextCalls({ content: 'CALL f(1)', toolCalls: [] }, 'answer')).toBe(false);
    expect(readsTextCalls({ content: 'CALL f(1)', toolCalls: [call('1')] }, 'explore')).toBe(false);
    expect(readsTextCalls({ content: ' ', toolCalls: [] }, 'explore')).toBe(false);
    expect(readsTextCalls({ content: 'CALL f(1)', toolCalls: [] }, 'final')).toBe(true);
    expect(interpretReply(reply({ content: 'CALL f(1)' }), { ...ctx, mode: 'answer' })).toMatchObject({ answer: 'text', calls: [] });
  });

  it('gives each tool call an id, unique in the turn', () => {
    expect(uniqueToolCallIds([call('1'), call('2', 'a'), call('3', 'a')], 4).map((t) => t.id)).toEqual(['call_4_0', 'a', 'a_2']);
  });

  it('the assistant step keeps the reply, its answer, source and cost figures', () => {
    const t = interpretReply(reply({ content: 'thinking', toolCalls: [call('1', 'a')], reasoningContent: 'hmm' }), ctx);
    expect(t.rows[0]).toEqual({
      idx: 5,
      kind: 'assistant',
      agentMessage: {
        role: 'assistant',
        content: 'thinking',
        refusal: null,
        reasoningContent: 'hmm',
        toolCalls: [call('1', 'a')],
        answer: 'tool_calls',
        toolCallSource: 'native',
        callCount: 1,
        finishReason: 'stop',
        latencyMs: 42,
        cached: false,
        requestHash: 'h1',
      },
      tokensIn: 11,
      tokensOut: 7,
    });
    expect(interpretReply(reply({ content: 'x' }), { ...ctx, mode: 'answer' }).rows[0]?.agentMessage).not.toHaveProperty('reasoningContent');
  });
});

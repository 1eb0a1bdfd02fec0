// The pure SFT pieces on hand-made inputs: the keep/drop rule and its order, the conversation cut, tool
// union, the two export shapes, and the checkpoint-vs-base comparison's paired differences.
import { describe, expect, it } from 'vitest';
import { episodeRow } from '../fixtures/episodeRows';
import { DEFAULT_SFT_THRESHOLDS, hfLine, openAiLine, sftConversation, sftVerdict, unionTools } from '../../domain/training/sftData';
import { compareWithBase, formatSftComparison } from '../../domain/report/sftComparison';
import { renderSftHtml } from '../../domain/trainingReport/sftReport';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

const good = { status: 'completed', judged: true, score: 5, unparsable: false, codeMatchUnobserved: 1, hasDescription: true, contradictsObserved: false };

describe('sftVerdict', () => {
  it('keeps a passing episode and names the first failing check otherwise', () => {
    const t = DEFAULT_SFT_THRESHOLDS;
    expect(sftVerdict(good, t)).toEqual({ keep: true });
    expect(sftVerdict({ ...good, status: 'failed', judged: false }, t)).toEqual({ keep: false, reason: 'episode_failed' });
    expect(sftVerdict({ ...good, judged: false }, t)).toEqual({ keep: false, reason: 'not_judged' });
    expect(sftVerdict({ ...good, score: null }, t)).toEqual({ keep: false, reason: 'unparsable_score' });
    expect(sftVerdict({ ...good, hasDescription: false }, t)).toEqual({ keep: false, reason: 'no_description' });
    expect(sftVerdict({ ...good, score: 3, codeMatchUnobserved: 0 }, t)).toEqual({ keep: false, reason: 'score_below_min' });
    expect(sftVerdict({ ...good, score: 4, codeMatchUnobserved: null }, t)).toEqual({ keep: false, reason: 'no_code_match' });
    expect(sftVerdict({ ...good, score: 4, codeMatchUnobserved: null }, { ...t, minCodeMatch: 0 })).toEqual({ keep: true });
    expect(sftVerdict({ ...good, codeMatchUnobserved: 0.79 }, t)).toEqual({ keep: false, reason: 'code_match_below_min' });
    expect(sftVerdict({ ...good, contradictsObserved: true }, t)).toEqual({ keep: false, reason: 'contradicts_observed' });
    expect(sftVerdict({ ...good, contradictsObserved: true }, { ...t, dropContradicting: false })).toEqual({ keep: true });
  });
});

const conv: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'probe f' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'call_method', arguments: '{"args": "1, 2"}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: '3' },
  { role: 'assistant', content: 'thinking', tool_calls: [{ id: 'c2', type: 'function', function: { name: 'submit_description', arguments: 'not json' } }] },
  { role: 'tool', tool_call_id: 'c2', content: 'submitted' },
];
const tool = (name: string): ChatCompletionTool => ({ type: 'function', function: { name, description: name, parameters: { type: 'object' } } });

describe('examples and exports', () => {
  it('cuts the conversation after the last assistant message and unions tools by name', () => {
    expect(sftConversation(conv)).toEqual(conv.slice(0, 5));
    expect(sftConversation([{ role: 'user', content: 'x' }])).toEqual([]);
    expect(unionTools([[tool('a'), tool('b')], undefined, [tool('b'), tool('c')]]).map((t) => (t.type === 'function' ? t.function.name : ''))).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('writes the OpenAI shape (string arguments, no null content) and the TRL shape (object arguments, string content)', () => {
    const oa = openAiLine(sftConversation(conv), [tool('call_method')]) as { messages: Record<string, unknown>[]; tools: unknown[] };
    expect(oa.messages[2]).toEqual({
      role: 'assistant',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'call_method', arguments: '{"args": "1, 2"}' } }],
    });
    expect(oa.messages[3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: '3' });
    expect(oa.messages[4]).toMatchObject({ role: 'assistant', content: 'thinking' });
    expect(oa.tools).toHaveLength(1);
    const hf = hfLine(sftConversation(conv), null) as { messages: Record<string, unknown>[]; tools?: unknown };
    expect(hf.tools).toBeUndefined();
    expect(hf.messages[2]).toEqual({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'call_method', arguments: { args: '1, 2' } } }],
    });
    expect((hf.messages[4]!.tool_calls as { function: { arguments: unknown } }[])[0]!.function.arguments).toBe('not json');
  });
});

describe('compareWithBase', () => {
  const row = (model: string, methodId: string, score: number, setting: 'interactive' | 'in-context' = 'interactive') =>
    episodeRow({
      episodeId: `${model}/${methodId}/${setting}`,
      methodId,
      source: 'fixture',
      model,
      setting,
      endReason: 'submitted',
      score,
      codeMatch: score / 5,
      statementCoverage: null,
      branchCoverage: null,
    });

  it('gives both means and the paired difference SFT - base per setting and metric', () => {
    const rows = [
      row('ckpt:x', 'm1', 4),
      row('ckpt:x', 'm2', 2),
      row('base', 'm1', 3),
      row('base', 'm2', 2),
      row('base', 'm3', 5),
      row('ckpt:x', 'm1', 1, 'in-context'),
    ];
    const c = compareWithBase(rows, { checkpointModel: 'ckpt:x', baseModel: 'base', evalRunId: 'r', judgeModel: 'j', bootstrap: { resamples: 200 } });
    const score = c.rows.find((r) => r.setting === 'interactive' && r.metric === 'score')!;
    expect(score.checkpoint).toMatchObject({ n: 2, mean: 3 });
    expect(score.base).toMatchObject({ n: 3, mean: 10 / 3 });
    expect(score.diff).toMatchObject({ n: 2, mean: 0.5, unpaired: 1 }); // (4-3 + 2-2) / 2; m3 has no SFT pair
    const ic = c.rows.find((r) => r.setting === 'in-context' && r.metric === 'score')!;
    expect(ic.diff).toMatchObject({ n: 0, mean: null, unpaired: 1 });
    expect(c.episodes).toEqual({ checkpoint: 3, base: 3, failed: 0, judged: 6 });
    expect(formatSftComparison(c)).toContain('SFT - base (paired)');
    // With its power: differences [1, 0], σ_d = √0.5 = 0.71, MDE = 2.8016 · 0.71 / √2 = 1.40 > 0.5,
    // (2.8016 · 0.71 / 0.13)² = 232.2 methods for the paper's +0.13.
    expect(formatSftComparison(c)).toMatch(/SFT - base \(paired\)\s+σ_d\s+MDE \(80 %\)\s+n for paper's effect/);
    expect(formatSftComparison(c)).toMatch(/interactive\s+score \(1-5\).*n=2 \(1 unpaired\)\s+0\.71\s+1\.40 \(not resolved at this n\)\s+233 for ±0\.13/);
    const html = renderSftHtml({
      kind: 'sft',
      runId: 'sft-r',
      status: 'completed',
      generatedAt: 'now',
      config: { data: 'd1', base: 'base', maxLength: 4096, eval: null },
      checkpointModel: 'ckpt:x',
      training: null,
      evalRunId: 'r',
      comparison: c,
      error: null,
    });
    expect(html).toContain('<th>σ_d</th><th>MDE (80 %)</th><th>n for paper&#39;s effect</th>');
    expect(html).toMatch(/n=2<\/td><td>0\.71<\/td><td>1\.40 \(not resolved at this n\)<\/td><td>233 for ±0\.13<\/td>/);
  });
});

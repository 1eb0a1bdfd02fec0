// The inspect_ai log builder alone: messages in inspect's shape, scores gated by the judge card (a withheld
// score never carries its number), one log per model x setting named as inspect's listing parses.
import { describe, expect, it } from 'vitest';
import { type ExportEpisode, inspectLogs, sampleScores, toInspectMessages } from '../../domain/export/inspectLog';
import { reportView } from '../../domain/report/judgeCardView';
import { summarize } from '../../domain/report/summarize';
import { baseRow, card } from './fixtures';

const missing = { status: 'missing' as const, judgeModel: 'j', coderModel: 'j', command: 'npm run pau -- calibrate judge --judge j', forced: false };
const judgedRow = { ...baseRow, episodeId: 'r/m/a/interactive/0', score: 4, codeMatchUnobserved: 0.5, callsMade: 3 };

describe('inspect log builder', () => {
  it('writes tool calls with parsed arguments and names the tool of each result', () => {
    const msgs = toInspectMessages(
      [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'call_method', arguments: '{"args": "1, 2"}' } },
            { id: 'c2', type: 'function', function: { name: 'call_method', arguments: '{oops' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '3' },
        { role: 'tool', tool_call_id: 'c2', content: 'error' },
      ],
      'a',
    );
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    const a = msgs[2]!;
    expect(a.role === 'assistant' && a.tool_calls?.[0]).toEqual({ id: 'c1', function: 'call_method', arguments: { args: '1, 2' }, type: 'function' });
    expect(a.role === 'assistant' && a.tool_calls?.[1]?.arguments).toEqual({ raw: '{oops' });
    expect(a.role === 'assistant' && a.tool_calls?.[1]?.parse_error).toMatch(/JSON/);
    expect(msgs[3]).toMatchObject({ role: 'tool', tool_call_id: 'c1', function: 'call_method' });
  });

  it('withholds judge scores and code match without a card: the value is "withheld", the number appears nowhere', () => {
    const s = sampleScores({ row: judgedRow, rationale: 'looks right' }, reportView({ judgeModel: 'j', judgeCard: missing }), 'j');
    expect(s.judge?.value).toBe('withheld');
    expect(s.judge?.explanation).toMatch(/^Scores withheld: no judge card/);
    expect(s.code_match_unseen?.value).toBe('withheld');
    expect(JSON.stringify(s.judge)).not.toContain('looks right');
    expect(s.statement_coverage?.value).toBe(1);
    expect(s.calls?.value).toBe(3);
  });

  it('shows the numbers with a qualified card, marks a forced judge, and gives an unjudged episode only calls and end reason', () => {
    const q = sampleScores({ row: judgedRow, rationale: 'r' }, reportView({ judgeModel: 'j', judgeCard: { status: 'qualified', card: card() } }), 'j');
    expect(q.judge).toMatchObject({ value: 4, explanation: 'r' });
    expect(q.code_match_unseen?.value).toBe(0.5);
    // A method of a mode the card did not qualify: its score is withheld, its code match stays.
    const byMode = sampleScores(
      { row: { ...judgedRow, judgeMode: 'codeOnly', score: null, scoreWithheld: true }, rationale: 'r' },
      reportView({ judgeModel: 'j', judgeCard: { status: 'qualified', card: card() } }),
      'j',
    );
    expect(byMode.judge).toMatchObject({ value: 'withheld', explanation: "the judge card did not qualify the judge in this method's mode (codeOnly)" });
    expect(byMode.code_match_unseen?.value).toBe(0.5);
    const forced = sampleScores({ row: judgedRow, rationale: null }, reportView({ judgeModel: 'j', judgeCard: { ...missing, forced: true } }), 'j');
    expect(forced.judge?.value).toBe(4);
    expect(forced.judge?.metadata?.forced).toMatch(/^UNQUALIFIED JUDGE — forced/);
    const unjudged = sampleScores(
      { row: { ...judgedRow, judged: false, score: null, statementCoverage: null, branchCoverage: null }, rationale: null },
      reportView({ judgeModel: 'j', judgeCard: missing }),
      'j',
    );
    expect(Object.keys(unjudged)).toEqual(['calls', 'end_reason']);
  });

  it('a run with no judge: no judge scorer at all, and the coverage its episodes measured without one', () => {
    const row = { ...judgedRow, judged: false, score: null, codeMatch: null, codeMatchUnobserved: null, statementCoverage: 0.75, branchCoverage: 0.5 };
    const s = sampleScores({ row, rationale: null }, reportView({ judgeModel: null }), null);
    expect(Object.keys(s).sort()).toEqual(['branch_coverage', 'calls', 'end_reason', 'statement_coverage']);
    expect(s.statement_coverage?.value).toBe(0.75);
    const summary = summarize([row], { resamples: 50 });
    const [log] = inspectLogs({
      ...logsInput(),
      groups: summary.groups,
      distribution: summary.distribution,
      episodes: [{ row, messages: [], steps: 0, finalDescription: 'adds', error: null, rationale: null, signature: null }],
    });
    const names = log!.log.results.scores.map((x) => x.name);
    expect(names).toEqual(['statement_coverage', 'branch_coverage', 'calls', 'end_reason']);
    expect(log!.log.results.scores[0]!.metrics.mean?.value).toBe(0.75);
    expect(log!.log.eval.metadata.judge).toMatchObject({ judge_model: null, card: 'not judged', scores_shown: false });
  });

  it('makes one log per model x setting, named for inspect, and records an episode with no transcript', () => {
    const rows = [judgedRow, { ...judgedRow, episodeId: 'r/m/b/in-context/0', model: 'b', setting: 'in-context' as const, status: 'failed', judged: false }];
    const episodes: ExportEpisode[] = rows.map((row, i) => ({
      row,
      messages: i === 0 ? [{ role: 'user', content: 'def f(x):' }] : [],
      steps: i === 0 ? 1 : 0,
      finalDescription: i === 0 ? 'adds' : null,
      error: i === 0 ? null : 'worker lost',
      rationale: null,
      signature: 'def f(x):',
    }));
    const summary = summarize(rows, { resamples: 50 });
    const logs = inspectLogs({
      run: { id: 'r', status: 'completed', startedAt: '2026-12-03T10:00:00.123Z', finishedAt: '2026-12-03T10:05:00.000Z' },
      config: { dataset: 'd', split: 'test', samples: 1 },
      dataset: { name: 'd', contentHash: 'sha256:abc' },
      judgeModel: 'j',
      judgeCard: missing,
      groups: summary.groups,
      distribution: summary.distribution,
      episodes,
      params: { a: { temperature: 0, max_tokens: 256, stop: ['x'] } },
      packages: { 'pau-pipeline': '0.1.0', inspect_ai: '0.3.285' },
    });
    expect(logs.map((l) => [l.model, l.setting])).toEqual([
      ['a', 'interactive'],
      ['b', 'in-context'],
    ]);
    expect(logs[0]!.fileName).toMatch(/^2026-12-03T10-00-00\+00-00_pau-interactive_[0-9a-f]+\.json$/);
    expect(logs[0]!.log.eval.model_generate_config).toEqual({ temperature: 0, max_tokens: 256 });
    expect(logs[0]!.log.eval.metadata.request_params).toEqual({ temperature: 0, max_tokens: 256, stop: ['x'] });
    expect(logs[0]!.log.eval.dataset.location).toBe('pau:d@sha256:abc#test');
    expect(logs[0]!.log.results.scores.find((s) => s.name === 'judge')).toMatchObject({
      metrics: {},
      metadata: { withheld: expect.stringMatching(/^Scores withheld/) },
    });
    const lost = logs[1]!.log.samples[0]!;
    expect(lost.metadata.no_transcript).toBe('no steps recorded: the episode failed before its first step: worker lost');
    expect(lost.error?.message).toBe('worker lost');
    expect(inspectLogs({ ...logsInput(), episodes: [] })).toEqual([]);
  });
});

function logsInput() {
  return {
    run: { id: 'r', status: 'completed', startedAt: '2026-12-03T10:00:00Z', finishedAt: null },
    config: { dataset: 'd', split: 'test', samples: 1 },
    dataset: { name: 'd', contentHash: null },
    judgeModel: null,
    judgeCard: undefined,
    groups: [],
    distribution: [],
    params: {},
    packages: {},
  };
}

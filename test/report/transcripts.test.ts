// Episode transcripts on the real stack: a scripted benchmark run on a method whose texts are hostile
// HTML; the report links a page per episode, each page (and `pau runs show RUN --episode ID`) holds the
// signature the agent saw, every call with its observation (value or exception), the final description,
// the judge's rationale and score, the generated code and the held-out inputs where it disagreed; and
// every stored text is escaped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureDataset, methodRow } from '../fixtures/datasetRows';
import { fetchReportFiles } from '../../scripts/client/report';
import { startBenchmark } from '../../scripts/client/starters';
import { renderTranscriptHtml } from '../../domain/report/renderTranscriptHtml';
import { buildTranscript } from '../../domain/report/transcript';
import { transcriptFileName, transcriptHref } from '../../domain/report/transcriptLinks';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const DATASET = 'fixture-transcripts';
const HOSTILE = {
  id: 'fixture/tag',
  entryPoint: 'tag',
  signature: 'def tag(s):',
  code: "def tag(s):\n    if s == 'boom':\n        raise ValueError('<img src=x onerror=alert(1)>')\n    return '<b>' + s + '</b>'\n",
  gold: 'Wraps s in <b></b> tags and returns it; raises ValueError when s is "boom". <script>alert("pwned")</script>',
  probes: ["'hi'", "'boom'", "'</pre><script>x</script>'"],
  heldout: ["'a'", "'xyz'", "'boom'"],
};

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: fixtureDataset(DATASET, [
    methodRow({
      id: HOSTILE.id,
      entryPoint: HOSTILE.entryPoint,
      signature: HOSTILE.signature,
      code: HOSTILE.code,
      goldDescription: HOSTILE.gold,
      probeInputs: HOSTILE.probes,
      heldoutInputs: HOSTILE.heldout,
    }),
  ]),
});

const runId = `transcripts-${Date.now().toString(36)}`;
const suffix = (model: string, setting: string) => `${HOSTILE.id}/${model}/${setting}/0`;
const episodeId = (model: string, setting: string) => `${runId}/${suffix(model, setting)}`;

describe('episode transcripts', () => {
  it('the report links a page per episode; each page holds every part, escaped', async () => {
    const handle = await startBenchmark(stack.client, runId, {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle', 'mock-null'],
      settings: ['interactive', 'in-context'],
      samples: 1,
      judgeModel: 'mock-oracle',
    });
    expect((await handle.result()).totals.failed).toBe(0);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-transcripts-'));
    const files = await fetchReportFiles(stack.db, runId, out);
    const report = fs.readFileSync(files.htmlPath, 'utf8');
    for (const model of ['mock-oracle', 'mock-null']) {
      for (const setting of ['interactive', 'in-context']) {
        const href = transcriptHref(runId, episodeId(model, setting));
        expect(report).toContain(`href="${href}"`);
        expect(fs.existsSync(path.join(out, decodeURIComponent(href)))).toBe(true);
      }
    }

    const page = (model: string, setting: string) =>
      fs.readFileSync(path.join(files.transcriptsDir!, transcriptFileName(runId, episodeId(model, setting))), 'utf8');
    const oracle = page('mock-oracle', 'interactive');
    // The signature as the agent saw it, every call with its observation: a value and an exception.
    expect(oracle).toContain('Signature shown to the agent');
    expect(oracle).toContain('def tag(s):');
    expect(oracle).toContain('Start investigating.');
    expect(oracle).toContain('tag(&#39;hi&#39;)</code> → <code class="obs">&#39;&lt;b&gt;hi&lt;/b&gt;&#39;</code>');
    expect(oracle).toContain('tag(&#39;boom&#39;)</code> raises <code class="obs">ValueError: &lt;img src=x onerror=alert(1)&gt;</code>');
    expect(oracle).toContain('tag(&#39;&lt;/pre&gt;&lt;script&gt;x&lt;/script&gt;&#39;)');
    // The final description, the judge's rationale and score, the code written from the description.
    expect(oracle).toContain('Final description');
    expect(oracle).toContain('&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(oracle).toMatch(/Judge <code>mock-oracle<\/code>: score 5 \/ 5, code match 100\.0% \(100\.0% on the \d+ held-out inputs the agent never saw\)/);
    expect(oracle).toContain('Word overlap with the reference description');
    expect(oracle).toContain('return &#39;&lt;b&gt;&#39; + s + &#39;&lt;/b&gt;&#39;');
    expect(oracle).toContain('No held-out disagreement recorded');
    // The judge-model contradiction classifier (scripted here): its verdict is on the page.
    expect(oracle).toContain('Contradiction classifier: <strong>consistent</strong>');
    // No hostile text got through as markup: the only tags are the page's own.
    for (const p of [oracle, page('mock-null', 'in-context'), report]) {
      expect(p).not.toMatch(/<script|<img|<b>/i);
    }

    // The null agent's code (a function returning None) disagrees on the held-out inputs: shown with both outcomes.
    const nul = page('mock-null', 'in-context');
    expect(nul).toContain('I do not know what this method does.');
    expect(nul).toMatch(/score 1 \/ 5, code match 0\.0%/);
    expect(nul).toContain('Held-out inputs where the generated code disagreed');
    expect(nul).toContain(
      'Contradiction classifier: <strong>omits</strong> · cites #2 <code>tag(&#39;boom&#39;)</code> → <code>ValueError: &lt;img src=x onerror=alert(1)&gt;</code>',
    );
    expect(report).toContain("Contradictions of the agent's own observations");
    expect(nul).toContain('<td><code>tag(&#39;xyz&#39;)</code></td><td><code>&#39;&lt;b&gt;xyz&lt;/b&gt;&#39;</code></td><td><code>None</code></td>');
    expect(nul).toContain(
      '<td><code>tag(&#39;boom&#39;)</code></td><td><code>ValueError: &lt;img src=x onerror=alert(1)&gt;</code></td><td><code>None</code></td>',
    );
    // In-context: the examples it was shown, each with its observation.
    expect(nul).toContain('<span class="tag">example</span><code>tag(&#39;hi&#39;)</code>');
    expect(nul.match(/class="call (ok|exc)"/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('`pau runs show RUN --episode ID` prints the same parts', async () => {
    const r = await runCli(['runs', 'show', runId, '--episode', suffix('mock-null', 'interactive')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`episode ${episodeId('mock-null', 'interactive')}`);
    expect(r.stdout).toContain('signature shown to the agent:\n    def tag(s):');
    expect(r.stdout).toContain('final description:');
    expect(r.stdout).toContain('I do not know what this method does.');
    expect(r.stdout).toMatch(/judge mock-oracle: score 1\/5, code match 0\.0%/);
    expect(r.stdout).toContain('rationale:');
    expect(r.stdout).toContain('code written from the description:');
    expect(r.stdout).toContain("tag('xyz'): original '<b>xyz</b>' | generated None");
    const oracle = await runCli(['runs', 'show', runId, '--episode', episodeId('mock-oracle', 'interactive')]);
    expect(oracle.stdout).toContain("call tag('hi') -> '<b>hi</b>'");
    expect(oracle.stdout).toContain("call tag('boom') raises ValueError: <img src=x onerror=alert(1)>");
    expect(oracle.stdout).toContain('submitted:');
    const missing = await runCli(['runs', 'show', runId, '--episode', 'nope/0']);
    expect(missing.code).toBe(2); // a name that names nothing: docs/cli.md
    expect(missing.stderr.trim()).toBe(`pau runs: no episode "${runId}/nope/0" in run ${runId} (npm run pau -- runs show ${runId} --all lists them)`);
  });

  it('escapes hostile text in every field of a page (no stack needed)', () => {
    const evil = '<script>alert(1)</script>"\'&';
    const t = buildTranscript({
      episode: {
        id: `r/${evil}`,
        runId: 'r',
        methodId: evil,
        model: evil,
        setting: 'interactive',
        sample: 0,
        status: 'completed',
        endReason: evil,
        error: evil,
        callsMade: 1,
        tokensIn: 0,
        tokensOut: 0,
        costUsd: 0,
        finalDescription: evil,
      },
      signature: evil,
      steps: [
        { idx: 0, kind: 'system', agentMessage: { content: evil }, call: null, observation: null },
        { idx: 1, kind: 'user', agentMessage: { content: evil, reason: evil }, call: null, observation: null },
        {
          idx: 2,
          kind: 'assistant',
          agentMessage: { content: evil, refusal: evil, toolCalls: [{ id: 'c1', name: evil, arguments: evil }] },
          call: null,
          observation: null,
        },
        {
          idx: 3,
          kind: 'call',
          agentMessage: null,
          call: { arguments: evil },
          observation: { text: evil, category: evil, result: { ok: false, error: { type: evil, message: evil }, stdout: '', ms: 0 } },
        },
        { idx: 4, kind: 'problem', agentMessage: null, call: { raw: evil, problem: evil }, observation: { text: evil } },
        { idx: 5, kind: 'submit', agentMessage: null, call: { description: evil }, observation: null },
      ],
      judgments: [
        {
          judgeModel: evil,
          score: 2,
          unparsable: 0,
          rationale: evil,
          codeMatch: 0,
          generatedCode: evil,
          diagnostics: { heldoutDisagreements: [{ input: evil, expected: evil, got: evil }] },
        },
      ],
      uiLink: `javascript:"${evil}`,
    });
    const html = renderTranscriptHtml(t, evil);
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/"[^"]*<script/);
    expect(html.split('&lt;script&gt;alert(1)&lt;/script&gt;').length - 1).toBeGreaterThanOrEqual(15);
  });
});

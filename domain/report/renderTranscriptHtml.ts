// An episode transcript as one self-contained HTML page (inline styles, no scripts, no external assets).
// Every stored text is escaped: descriptions, observations and generated code are untrusted. Pure code.
import { esc } from './html';
import { unseenText, type Transcript, type TranscriptEntry, type TranscriptJudgment } from './transcript';
import { reportBaseName } from './transcriptLinks';

const pre = (text: string, cls = '') => `<pre${cls ? ` class="${cls}"` : ''}>${esc(text)}</pre>`;
const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);

function callLine(entry: TranscriptEntry & { kind: 'call' | 'example' }, entryPoint: string): string {
  const cls = entry.ok === null ? 'pending' : entry.ok ? 'ok' : 'exc';
  const arrow = entry.ok === false ? 'raises' : '→';
  return `<div class="call ${cls}"><span class="tag">${entry.kind === 'call' ? `call #${entry.idx}` : 'example'}</span><code>${esc(`${entryPoint}(${entry.arguments})`)}</code> ${arrow} <code class="obs">${esc(entry.observation)}</code>${entry.category && entry.category !== 'value' ? ` <span class="cat">${esc(entry.category)}</span>` : ''}</div>`;
}

export function entryHtml(entry: TranscriptEntry, entryPoint: string): string {
  switch (entry.kind) {
    case 'message':
      return entry.role === 'system'
        ? `<details class="msg system"><summary>system prompt</summary>${pre(entry.content)}</details>`
        : `<div class="msg user"><span class="tag">user${entry.reason ? ` (${esc(entry.reason)})` : ''}</span>${pre(entry.content)}</div>`;
    case 'assistant': {
      const calls = entry.toolCalls.map((t) => `<li><code>${esc(t.name)}</code> <code>${esc(t.arguments)}</code></li>`).join('');
      return `<div class="msg assistant"><span class="tag">agent</span>${entry.content ? pre(entry.content) : ''}${entry.refusal ? `<p>refusal: ${esc(entry.refusal)}</p>` : ''}${calls ? `<ul class="toolcalls">${calls}</ul>` : ''}</div>`;
    }
    case 'call':
    case 'example':
      return callLine(entry, entryPoint);
    case 'problem':
      return `<div class="call problem"><span class="tag">not run: ${esc(entry.problem)}</span><code>${esc(entry.raw)}</code> → ${esc(entry.observation)}</div>`;
    case 'submit':
      return `<div class="msg submit"><span class="tag">submitted</span>${pre(entry.description)}</div>`;
  }
}

function judgmentHtml(j: TranscriptJudgment, entryPoint: string): string {
  const score = j.score === null ? (j.unparsable ? 'unparsable' : '-') : `${j.score} / 5`;
  const rows = j.disagreements
    .map((d) => `<tr><td><code>${esc(`${entryPoint}(${d.input})`)}</code></td><td><code>${esc(d.expected)}</code></td><td><code>${esc(d.got)}</code></td></tr>`)
    .join('');
  const dis =
    j.disagreements.length > 0
      ? `<h4>Held-out inputs where the generated code disagreed${j.heldoutCounted !== null ? ` (of ${j.heldoutCounted} compared; at most ${j.disagreements.length} shown)` : ''}</h4><table><thead><tr><th>input</th><th>original</th><th>generated code</th></tr></thead><tbody>${rows}</tbody></table>`
      : `<p>No held-out disagreement recorded${j.heldoutCounted !== null ? ` (${j.heldoutCounted} inputs compared)` : ''}.</p>`;
  return `<section class="judgment"><h3>Judge <code>${esc(j.judgeModel)}</code>: score ${esc(score)}, code match ${esc(pct(j.codeMatch))}${esc(unseenText(j, pct))}${j.contradictsObserved ? ', contradicts an observation' : ''}</h3>
<h4>Rationale</h4>${pre(j.rationale ?? '(none)')}
${j.classifier ? `<p>Contradiction classifier: <strong>${esc(j.classifier.verdict ?? 'no verdict')}</strong>${j.classifier.cited.map((c) => ` · cites #${c.n} <code>${esc(`${entryPoint}(${c.arguments})`)}</code> → <code>${esc(c.observation)}</code>`).join('')}</p>` : ''}
<h4>Code written from the description</h4>${j.generatedCode === null ? '<p>(no code could be extracted)</p>' : pre(j.generatedCode, 'code')}
${dis}</section>`;
}

export function renderTranscriptHtml(t: Transcript, entryPoint: string): string {
  const title = `${t.methodId} · ${t.model} · ${t.setting} · sample ${t.sample}`;
  const meta = [
    ['run', `<a href="../${esc(encodeURIComponent(reportBaseName(t.runId)))}.html">${esc(t.runId)}</a>`],
    ['status', esc(`${t.status}${t.endReason ? ` (${t.endReason})` : ''}`)],
    ...(t.error ? [['error', esc(t.error)]] : []),
    ['calls', String(t.callsMade)],
    ['tokens', `${t.tokensIn} in / ${t.tokensOut} out, $${t.costUsd.toFixed(4)}`],
    ...(t.uiLink ? [['Temporal UI', `<a href="${esc(t.uiLink)}">${esc(t.episodeId)}</a>`]] : []),
  ]
    .map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:1100px}
pre{background:#f6f6f6;padding:6px 8px;white-space:pre-wrap;word-break:break-word;margin:4px 0}pre.code{background:#f2f6fb}
table{border-collapse:collapse;font-size:13px;margin:.5em 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
.msg,.call{margin:6px 0;padding:4px 8px;border-left:3px solid #ccc}.assistant{border-color:#4e79a7}.submit{border-color:#59a14f}
.call.ok{border-color:#59a14f}.call.exc{border-color:#e15759}.call.problem,.call.pending{border-color:#edc948}
.tag{font-size:11px;text-transform:uppercase;color:#666;margin-right:8px}.cat{font-size:11px;color:#a33}code{background:#f3f3f3;padding:0 3px}
</style></head><body>
<h1>${esc(title)}</h1>
<table>${meta}</table>
<h2>Signature shown to the agent</h2>${pre(t.signature ?? '(unknown)', 'code')}
<h2>Transcript</h2>
${t.entries.map((e) => entryHtml(e, entryPoint)).join('\n')}
<h2>Final description</h2>${t.finalDescription === null ? '<p>(none: the episode ended without one)</p>' : pre(t.finalDescription)}
<h2>Judgments</h2>
${t.judgments.length === 0 ? '<p>Not judged.</p>' : t.judgments.map((j) => judgmentHtml(j, entryPoint)).join('\n')}
</body></html>
`;
}

// An episode transcript as terminal text (`pau runs show RUN --episode ID`): the same parts as the HTML
// page, in reading order. Pure code.
import { unseenText, type Transcript, type TranscriptEntry } from './transcript';

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');
const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);

function entryText(e: TranscriptEntry, entryPoint: string, full: boolean): string {
  switch (e.kind) {
    case 'message':
      if (e.role === 'system' && !full) return `[${e.idx}] system prompt (${e.content.length} chars; --full shows it)`;
      return `[${e.idx}] ${e.role}${e.reason ? ` (${e.reason})` : ''}:\n${indent(e.content)}`;
    case 'assistant': {
      const parts = [`[${e.idx}] agent:`];
      if (e.content) parts.push(indent(e.content));
      if (e.refusal) parts.push(indent(`refusal: ${e.refusal}`));
      for (const t of e.toolCalls) parts.push(indent(`-> ${t.name} ${t.arguments}`));
      return parts.join('\n');
    }
    case 'call':
    case 'example':
      return `[${e.idx}] ${e.kind === 'call' ? 'call' : 'example'} ${entryPoint}(${e.arguments}) ${e.ok === false ? 'raises' : '->'} ${e.observation}${e.category && e.category !== 'value' ? `  [${e.category}]` : ''}`;
    case 'problem':
      return `[${e.idx}] not run (${e.problem}): ${e.raw} -> ${e.observation}`;
    case 'submit':
      return `[${e.idx}] submitted:\n${indent(e.description)}`;
  }
}

export function renderTranscriptText(t: Transcript, entryPoint: string, opts: { full?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`episode ${t.episodeId}`);
  out.push(`  ${t.methodId} · ${t.model} · ${t.setting} · sample ${t.sample}: ${t.status}${t.endReason ? ` (${t.endReason})` : ''}`);
  if (t.error) out.push(`  error: ${t.error}`);
  out.push(`  ${t.callsMade} calls, ${t.tokensIn} tokens in / ${t.tokensOut} out, $${t.costUsd.toFixed(4)}`);
  if (t.uiLink) out.push(`  ${t.uiLink}`);
  out.push('', 'signature shown to the agent:', indent(t.signature ?? '(unknown)'));
  out.push('', 'transcript:');
  for (const e of t.entries) out.push(indent(entryText(e, entryPoint, opts.full ?? false), '  '));
  out.push('', 'final description:', indent(t.finalDescription ?? '(none: the episode ended without one)'));
  if (t.judgments.length === 0) out.push('', 'not judged');
  for (const j of t.judgments) {
    const score = j.score === null ? (j.unparsable ? 'unparsable' : '-') : `${j.score}/5`;
    out.push(
      '',
      `judge ${j.judgeModel}: score ${score}, code match ${pct(j.codeMatch)}${unseenText(j, pct)}${j.contradictsObserved ? ', contradicts an observation' : ''}`,
    );
    out.push('  rationale:', indent(j.rationale ?? '(none)'));
    if (j.classifier) {
      out.push(`  contradiction classifier: ${j.classifier.verdict ?? 'no verdict'}`);
      for (const c of j.classifier.cited) out.push(`    cites #${c.n} ${entryPoint}(${c.arguments}) -> ${c.observation}`);
    }
    out.push('  code written from the description:', indent(j.generatedCode ?? '(no code could be extracted)'));
    if (j.disagreements.length > 0) {
      out.push(`  held-out inputs where it disagreed${j.heldoutCounted !== null ? ` (of ${j.heldoutCounted} compared)` : ''}:`);
      for (const d of j.disagreements) out.push(`    ${entryPoint}(${d.input}): original ${d.expected} | generated ${d.got}`);
    } else out.push(`  no held-out disagreement recorded${j.heldoutCounted !== null ? ` (${j.heldoutCounted} inputs compared)` : ''}`);
  }
  return out.join('\n');
}

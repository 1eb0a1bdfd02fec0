// One episode as a person reads it: what the agent was shown (the signature in its first prompt), every
// turn and call with its observation (value or exception), the final description, and each judge's
// verdict (rationale, score, the code written from the description, the held-out inputs where that code
// disagreed with the original). Built from stored rows; rendered as an HTML page (renderTranscriptHtml)
// and as terminal text (renderTranscriptText). Pure code.
import type { StoredStep } from '../episode/stepRecord';
import type { HeldoutDisagreement } from '../judge/diagnostics';

export type TranscriptEntry =
  | { kind: 'message'; idx: number; role: 'system' | 'user'; content: string; reason?: string }
  | { kind: 'assistant'; idx: number; content: string | null; refusal: string | null; toolCalls: { name: string; arguments: string }[] }
  | { kind: 'call' | 'example'; idx: number; arguments: string; ok: boolean | null; observation: string; category: string }
  | { kind: 'problem'; idx: number; raw: string; problem: string; observation: string }
  | { kind: 'submit'; idx: number; description: string };

export interface TranscriptJudgment {
  judgeModel: string;
  score: number | null;
  unparsable: boolean;
  rationale: string | null;
  codeMatch: number | null;
  /** Code match on the counted held-out inputs the agent never observed, and how many (when recorded). */
  unseen: { codeMatch: number | null; inputs: number } | null;
  generatedCode: string | null;
  disagreements: HeldoutDisagreement[];
  /** Held-out inputs compared (when recorded). */
  heldoutCounted: number | null;
  contradictsObserved: boolean | null;
  /** The judge-model contradiction classifier's verdict and the observations it cited (when recorded). */
  classifier: { verdict: string | null; cited: { n: number; arguments: string; observation: string }[] } | null;
}

export interface Transcript {
  episodeId: string;
  runId: string;
  methodId: string;
  model: string;
  setting: string;
  sample: number;
  status: string;
  endReason: string | null;
  error: string | null;
  callsMade: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** The signature line the agent was shown (it also appears in the first user message). */
  signature: string | null;
  entries: TranscriptEntry[];
  finalDescription: string | null;
  judgments: TranscriptJudgment[];
  uiLink: string | null;
}

export interface TranscriptJudgmentRow {
  judgeModel: string;
  score: number | null;
  unparsable: number;
  rationale: string | null;
  codeMatch: number | null;
  generatedCode: string | null;
  diagnostics: unknown;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function transcriptEntry(s: StoredStep): TranscriptEntry | null {
  const m = obj(s.agentMessage);
  const call = obj(s.call);
  const obs = obj(s.observation);
  switch (s.kind) {
    case 'system':
    case 'user':
      return { kind: 'message', idx: s.idx, role: s.kind, content: str(m.content) ?? '', ...(str(m.reason) ? { reason: str(m.reason) as string } : {}) };
    case 'assistant': {
      const toolCalls = Array.isArray(m.toolCalls) ? m.toolCalls.map((t) => ({ name: str(obj(t).name) ?? '?', arguments: str(obj(t).arguments) ?? '' })) : [];
      return { kind: 'assistant', idx: s.idx, content: str(m.content), refusal: str(m.refusal), toolCalls };
    }
    case 'call':
    case 'example': {
      const result = obj(obs.result);
      const pending = s.observation === null || s.observation === undefined;
      return {
        kind: s.kind,
        idx: s.idx,
        arguments: str(call.arguments) ?? str(call.raw) ?? '',
        ok: pending ? null : typeof result.ok === 'boolean' ? result.ok : null,
        observation: pending ? '(no observation recorded)' : (str(obs.text) ?? ''),
        category: str(obs.category) ?? (pending ? 'pending' : ''),
      };
    }
    case 'problem':
      return { kind: 'problem', idx: s.idx, raw: str(call.raw) ?? '', problem: str(call.problem) ?? 'problem', observation: str(obs.text) ?? '' };
    case 'submit':
      return { kind: 'submit', idx: s.idx, description: str(call.description) ?? '' };
    default:
      return null;
  }
}

/** `, 0.0% on the 2 held-out inputs it never saw` (empty when not recorded). */
export function unseenText(j: Pick<TranscriptJudgment, 'unseen'>, pct: (x: number | null) => string): string {
  return j.unseen ? ` (${pct(j.unseen.codeMatch)} on the ${j.unseen.inputs} held-out inputs the agent never saw)` : '';
}

export function transcriptJudgment(j: TranscriptJudgmentRow): TranscriptJudgment {
  const d = obj(j.diagnostics);
  const disagreements = Array.isArray(d.heldoutDisagreements)
    ? d.heldoutDisagreements.map((x) => ({ input: str(obj(x).input) ?? '', expected: str(obj(x).expected) ?? '', got: str(obj(x).got) ?? '' }))
    : [];
  const counted = obj(d.heldout).counted;
  const unobserved = obj(d.heldout).unobserved;
  return {
    judgeModel: j.judgeModel,
    score: j.score,
    unparsable: j.unparsable > 0,
    rationale: j.rationale,
    codeMatch: j.codeMatch,
    unseen: typeof unobserved === 'number' ? { codeMatch: typeof d.codeMatchUnobserved === 'number' ? d.codeMatchUnobserved : null, inputs: unobserved } : null,
    generatedCode: j.generatedCode,
    disagreements,
    heldoutCounted: typeof counted === 'number' ? counted : null,
    contradictsObserved: typeof d.contradictsObserved === 'boolean' ? d.contradictsObserved : null,
    classifier: d.contradiction
      ? {
          verdict: str(obj(d.contradiction).verdict),
          cited: Array.isArray(obj(d.contradiction).cited)
            ? (obj(d.contradiction).cited as unknown[]).map((c) => ({
                n: Number(obj(c).n),
                arguments: str(obj(c).arguments) ?? '',
                observation: str(obj(c).observation) ?? '',
              }))
            : [],
        }
      : null,
  };
}

export interface TranscriptSource {
  /** The episode row's columns the transcript shows (`id` is the episode id). */
  episode: Omit<Transcript, 'episodeId' | 'signature' | 'entries' | 'judgments' | 'uiLink'> & { id: string };
  signature: string | null;
  steps: readonly StoredStep[];
  judgments: readonly TranscriptJudgmentRow[];
  uiLink: string | null;
}

export function buildTranscript(src: TranscriptSource): Transcript {
  const e = src.episode;
  return {
    episodeId: e.id,
    runId: e.runId,
    methodId: e.methodId,
    model: e.model,
    setting: e.setting,
    sample: e.sample,
    status: e.status,
    endReason: e.endReason,
    error: e.error,
    callsMade: e.callsMade,
    tokensIn: e.tokensIn,
    tokensOut: e.tokensOut,
    costUsd: e.costUsd,
    signature: src.signature,
    entries: [...src.steps]
      .sort((a, b) => a.idx - b.idx)
      .map(transcriptEntry)
      .filter((x): x is TranscriptEntry => x !== null),
    finalDescription: e.finalDescription,
    judgments: src.judgments.map(transcriptJudgment),
    uiLink: src.uiLink,
  };
}

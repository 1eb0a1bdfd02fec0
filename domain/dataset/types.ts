// What loaders produce: candidates (one per source problem, not yet analysed) and rejections with reasons.
import type { SourceName } from './sources';

/** How the analyser finds known-good argument lists in a source's own tests (see activities/dataset/analyze.py). */
export type KnownInputSource =
  | { kind: 'humaneval'; test: string }
  | { kind: 'asserts'; asserts: string[] }
  | { kind: 'call_args'; args: string[] }
  | { kind: 'examples'; input: string };

/** Where a method's gold description comes from. `code-only`: none; the judge compares against the code. */
export type GoldKind = 'docstring' | 'task-text' | 'instruction' | 'code-only';

export interface CandidateMethod {
  source: SourceName;
  sourceId: string;
  code: string;
  entryPoint?: string;
  inputs: KnownInputSource;
  goldKind: GoldKind;
  /** The gold text when the source gives it directly (MBPP task text, CodeAlpaca instruction). */
  gold: string | null;
  meta: Record<string, unknown>;
}

export interface Rejection {
  source: SourceName;
  sourceId: string;
  reason: string;
  detail: string;
}

export interface LoadResult {
  source: SourceName;
  files: { path: string; sha256: string }[];
  /** Records read (for MBPP: problems in the full file; the sanitized file refines them). */
  raw: number;
  candidates: CandidateMethod[];
  /** Malformed records (bad JSON, missing fields, not Python): rejected here, the rest load on. */
  rejects: Rejection[];
}

// Types of the calibration suite (controls that do not depend on any judge model): code match of the
// original against itself, of small mutants of it, of constant and identity functions. Shared by the
// activities, the workflows and the CLI (workflows import these as types only).
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import type { CodeMatchPlan } from '../judge/codeMatch';
import type { CallResult } from '../sandbox/schemas';

export interface CalibrationConfig {
  dataset: string;
  split: string;
  /** Only the first N methods of the split (dataset order). */
  limit?: number;
  /** Methods calibrated at once. */
  window?: number;
}

/** A calibration run's runs.config: the config as started, and the method ids frozen when it starts. */
export interface StoredCalibrationConfig extends CalibrationConfig {
  resolvedMethodIds: string[];
}
export const storedCalibrationConfigSchema = documentSchema<StoredCalibrationConfig>({
  dataset: z.string(),
  split: z.string(),
  resolvedMethodIds: z.array(z.string()),
});

export interface CalibrationInput {
  runId: string;
  config: CalibrationConfig;
}

export const MUTANT_KINDS = ['operator swap', 'constant change', 'off-by-one', 'swapped branch'] as const;
export type MutantKind = (typeof MUTANT_KINDS)[number];
/** `lookup`: the lookup-table baseline (computed, not run: domain/calibration/codeMatch.ts lookupTableCodeMatch). */
export type CandidateKind = 'original' | MutantKind | 'constant' | 'identity' | 'lookup';

/** A function scored like the code a coder writes: by code match with the original on the held-out set. */
export interface Candidate {
  kind: CandidateKind;
  /** Where the mutation is (`line 3`), or the constant's repr. */
  site: string;
  source: string;
}

export interface CalibrationPlan extends CodeMatchPlan {
  /** The Python of the candidate generator (run in the sandbox: activities/calibration/mutants.py). */
  generator: string;
}

export interface CandidateRun {
  kind: CandidateKind;
  site: string;
  results: CallResult[] | null;
  /** The candidate could not run (does not compile, no entry point, the batch failed): code match 0. */
  error?: string;
}

export interface CandidateScore {
  kind: CandidateKind;
  site: string;
  codeMatch: number | null;
  error?: string;
}

export interface MethodCalibration {
  methodId: string;
  /** The held-out inputs that count for code match (as the judge counts them). */
  counted: number;
  /** Why the method has no code match (no counted held-out input, the original failed to run). */
  excluded?: string;
  scores: CandidateScore[];
  /** The candidate generator failed: only the original and nothing else was scored. */
  generatorError?: string;
}

// Types of the reference-description workflows (`pau dataset describe`), shared by activities, workflows
// and the CLI (workflows import them as types only).
export type DescribeSplit = 'train' | 'validation' | 'test' | 'all';

export interface DescribeRunInput {
  dataset: string;
  /** Default `train` (the AAC-GRPO critic needs a gold description for every training method). */
  split?: DescribeSplit;
  /** The model that writes descriptions. */
  model: string;
  /** The model that writes code from a description (default: `model`). */
  coderModel?: string;
  /** Keep a description when the code written from it matches the original on at least this share (default 1.0). */
  threshold?: number;
  /** Only the first N methods that need one. */
  limit?: number;
  /** Describe again methods that already have an attempt by this model and prompt version. */
  force?: boolean;
  /** Methods in flight at once (default 4). */
  window?: number;
}

export interface DescribeMethodInput {
  methodId: string;
  model: string;
  coderModel: string;
  threshold: number;
  /** The describe run (parent workflow id), recorded with the description. */
  runWorkflowId?: string;
}

export interface DescribeMethodResult {
  methodId: string;
  status: 'accepted' | 'rejected';
  codeMatch: number | null;
  reason: string | null;
}

export interface DescribeRunProgress {
  total: number;
  done: number;
  accepted: number;
  rejected: number;
  failed: number;
}

export interface DescribeRunResult extends DescribeRunProgress {
  dataset: string;
  model: string;
  coderModel: string;
  split: DescribeSplit;
  threshold: number;
}

/** The code writer of a describe run: the one named, else the describing model itself (not a judge's default). */
export function describeCoderModel(input: Pick<DescribeRunInput, 'model' | 'coderModel'>): string {
  return input.coderModel ?? input.model;
}

export function describeRunWorkflowId(dataset: string, model: string): string {
  return `describe-run/${dataset}/${model}`;
}

export function describeMethodWorkflowId(model: string, methodId: string): string {
  return `describe/${model}/${methodId}`;
}

// The judge's formats as values (docs/judging.md, "Formats"): a format is what its requests send and how
// their replies become a score, not a branch in the code that sends them (as inspect_ai's model_graded_qa: a
// grader is its parameters). The judge activity plans a description's requests from its format, sends each
// and combines the verdicts; the judge card scores its rungs through the same loop. Pure code, no I/O.
import type { ChatMessage } from '../../llm/chatMessage';
import type { TokenLogprob } from '../../llm/tokenLogprobs';
import { DEFAULT_JUDGE_FORMAT, type JudgeFormat, type JudgeInput } from '../judgePrompt';
import type { ScoreDetail } from '../scoreDistribution';
import type { DescriptionVerdict } from '../types';
import { contrast, type ContrastMethod } from './contrast';
import { rationale } from './rationale';
import { verify } from './verify';

/** One request's shape and how its reply becomes a score. */
export interface JudgeAsk {
  /** The format's name (`judge.format`, a card's prompt version); a score detail names the request shape it read. */
  name: JudgeFormat;
  messages(input: JudgeInput): ChatMessage[];
  /** max_tokens of the reply. */
  maxTokens: number;
  /** The follow-up sent once when a reply holds no answer. */
  retryPrompt: string;
  /** The score a reply's text states (on the rubric's 1-5 scale); null: none. */
  parse(text: string | null | undefined): number | null;
  /** Whether a reply's logprobs hold the answer token. */
  hasAnswer(tokens: readonly TokenLogprob[]): boolean;
  /** The score from the reply's logprobs: the expectation over its answer token. */
  fromLogprobs(tokens: readonly TokenLogprob[]): ScoreDetail;
  /** The score from sampled replies' parsed scores (an endpoint without logprobs). */
  fromSamples(samples: readonly (number | null)[]): ScoreDetail;
}

/** One description to score: of which method, under which call key, and what the judge is shown. */
export interface ScoreCase {
  methodId: string;
  /** The llm_calls key of its first request (a retry adds `-retry`, a sample `-sample<i>`). */
  callKey: string;
  input: JudgeInput;
  /** The method a format that asks beside another (contrast) asks beside; null: none stored. */
  contrast?: ContrastMethod | null;
}

/** One request of a plan: a case's method, key and input, asked in one request shape. */
export interface PlannedRequest {
  methodId: string;
  callKey: string;
  input: JudgeInput;
  ask: JudgeAsk;
}

/** The requests that score some descriptions, in the order they are sent, and each description's verdict from theirs. */
export interface ScorePlan {
  requests: PlannedRequest[];
  /** One verdict per case, from the requests' verdicts (in the requests' order). */
  combine(verdicts: readonly DescriptionVerdict[]): DescriptionVerdict[];
}

export interface JudgeFormatValue extends JudgeAsk {
  /** Whether its plan asks beside another method (the caller looks the contrast method up). */
  besideAnother: boolean;
  /** The requests that score these descriptions of one method. */
  plan(cases: readonly ScoreCase[]): ScorePlan;
}

/** Every live format by name. */
export const JUDGE_FORMAT_VALUES: Readonly<Record<JudgeFormat, JudgeFormatValue>> = { rationale, verify, contrast };

/** A format's value; the default format when none is named. */
export function judgeFormat(name: JudgeFormat = DEFAULT_JUDGE_FORMAT): JudgeFormatValue {
  return JUDGE_FORMAT_VALUES[name];
}

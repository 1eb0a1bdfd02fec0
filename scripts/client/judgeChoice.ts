// Which judge scores a benchmark run after each episode. Explicit choice (flag or PAU_JUDGE_MODEL) wins;
// runs of scripted mock agents are judged by the scripted oracle judge; a run whose real agents are all
// local models is judged by the strongest local model installed that is neither an agent of the run nor
// related to one (its base, a checkpoint of it: domain/judge/selfJudge.ts); a small local judge is NOT the
// paper's judge, and the note and the report say so. A run of other real models with no judge configured,
// or of local models when no unrelated one is installed, is not judged (rather than silently judged by a
// mock or by itself) and the note says what to do. `checkSelfJudge` refuses an explicit self-judging pair.
import type { BenchmarkConfig } from '../../domain/bench/types';
import { installedModels } from '../../platform/models/local/install';
import { env } from '../../config/env';
import { LOCAL_PREFIX, LOCAL_STRENGTH_ORDER, SMALL_JUDGE_WARNING } from '../../domain/llm/localModels';
import { models } from '../../config/models';
import { checkpointIdOf, isCheckpointModel } from '../../domain/training/checkpointIds';
import { type GraderRole, type SelfJudgePair, selfJudgeRefusal, selfJudgeRelation, selfJudgePairs } from '../../domain/judge/selfJudge';
import { automaticJudge } from '../../domain/judge/config';
import { loadCheckpoint } from '../../db/queries/checkpoints';
import { connect } from '../../db/client';
import { UsageError } from '../lib/args';

export interface JudgeChoice {
  judgeModel: string | null;
  note: string;
  /** Self-judging pairs a forced run (`--allow-self-judge`) records in its config (set by the CLI's check). */
  selfJudge?: SelfJudgePair[];
}

/** Checkpoint model name -> the registry base model it was trained from (checkpointBases). */
export type CheckpointBases = ReadonlyMap<string, string>;

/** The judge models a local run may use, strongest first (SmolLM2 is too weak to judge). */
const JUDGE_CANDIDATES = LOCAL_STRENGTH_ORDER.filter((m) => m !== 'smollm2-135m').map((m) => `${LOCAL_PREFIX}${m}`);

/** Whether `model` grades any of `agents` as itself, their base or a checkpoint of them. */
function relatedToAny(agents: readonly string[], model: string, bases: CheckpointBases): boolean {
  return agents.some((a) => selfJudgeRelation(a, model, (n) => bases.get(n)) !== null);
}

/** The strongest built-in local judge whose file is installed and that is none of `agents` nor related to one. */
export function strongestInstalledLocal(agents: readonly string[] = [], bases: CheckpointBases = new Map()): string | undefined {
  const installed = new Set(installedModels().map((m) => `${LOCAL_PREFIX}${m}`));
  return JUDGE_CANDIDATES.find((m) => installed.has(m) && !relatedToAny(agents, m, bases));
}

/** A model's provider; a `ckpt:<id>` is served locally (its base + adapter), checked when it is called. */
function providerOf(name: string): string {
  return isCheckpointModel(name) ? 'local' : models().get(name).provider; // throws a clear "unknown model" error
}

/**
 * The judge of a run of `agentModels`. `bases` gives the base model of each `ckpt:<id>` agent (read by the
 * caller: checkpointBases), so the automatic choice never picks an agent's base either.
 */
export function chooseJudge(agentModels: string[], explicit?: string, bases: CheckpointBases = new Map()): JudgeChoice {
  const wanted = explicit ?? env().PAU_JUDGE_MODEL;
  if (wanted) {
    return { judgeModel: wanted, note: `judge: ${wanted}${providerOf(wanted) === 'local' ? ` (${SMALL_JUDGE_WARNING})` : ''}` };
  }
  const providers = agentModels.map(providerOf);
  const auto = automaticJudge(providers, () => strongestInstalledLocal(agentModels, bases));
  if (auto.kind === 'scripted') {
    return { judgeModel: auto.judgeModel, note: `judge: ${auto.judgeModel} (the scripted judge, not a real LLM: every agent model here is scripted)` };
  }
  if (auto.kind === 'local' || auto.kind === 'no-local') {
    const judge = auto.kind === 'local' ? auto.judgeModel : undefined;
    if (judge)
      return {
        judgeModel: judge,
        note: `judge and code writer: ${judge}, the strongest local model installed that is not an agent of this run nor its base (${SMALL_JUDGE_WARNING}; set PAU_JUDGE_MODEL to choose another)`,
      };
    // Never the agent itself: a model grading its own descriptions (or its base grading them) is no measurement.
    const wanted = JUDGE_CANDIDATES.find((m) => !relatedToAny(agentModels, m, bases));
    const install = wanted ? `npm run pau -- models install ${wanted.slice(LOCAL_PREFIX.length)}` : undefined;
    return {
      judgeModel: null,
      note:
        'judge: none — no local judge model is installed apart from the agents of this run and models related to them (an agent itself, its base, a checkpoint), and a model does not judge itself; ' +
        (install
          ? `install another with \`${install}\`, then judge the run with \`npm run pau -- judge --run <runId> --judge-model ${wanted}\``
          : 'set PAU_JUDGE_MODEL (or --judge-model) to a model of another family (docs/models.md)'),
    };
  }
  return {
    judgeModel: null,
    note: 'judge: none configured (set PAU_JUDGE_MODEL or --judge-model); episodes are not judged now — `npm run pau -- judge --run <runId> --judge-model M` judges them later',
  };
}

/** The config fields that make each episode end with a judge step (and record a forced self-judging pairing). */
export function judgeFields(judge: string | null | JudgeChoice): Pick<BenchmarkConfig, 'judgeModel' | 'selfJudge'> {
  const choice = typeof judge === 'string' || judge === null ? { judgeModel: judge } : judge;
  return {
    ...(choice.judgeModel ? { judgeModel: choice.judgeModel } : {}),
    ...('selfJudge' in choice && choice.selfJudge && choice.selfJudge.length > 0 ? { selfJudge: choice.selfJudge } : {}),
  };
}

/**
 * The judge a training command needs (its data or rewards are never unjudged): --judge-model,
 * PAU_JUDGE_MODEL, or what chooseJudge picks for these models. `what` names the command in the error.
 */
export function requireJudge(agentModels: string[], explicit: string | undefined, what: string, bases: CheckpointBases = new Map()): string {
  let choice: JudgeChoice;
  try {
    choice = chooseJudge(agentModels, explicit, bases);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!choice.judgeModel) throw new UsageError(`${what} needs a judge: pass --judge-model M or set PAU_JUDGE_MODEL (${choice.note})`);
  return choice.judgeModel;
}

/**
 * The base model of every `ckpt:<id>` among `names`, from the checkpoints table (one short connection,
 * none when no name is a checkpoint). An id without a row has no known base: it relates by name only.
 */
export async function checkpointBases(names: readonly string[]): Promise<Map<string, string>> {
  const ckpts = [...new Set(names.filter(isCheckpointModel))];
  const out = new Map<string, string>();
  if (ckpts.length === 0) return out;
  const h = connect(undefined, 1);
  try {
    for (const name of ckpts) {
      const row = await loadCheckpoint(h.db, checkpointIdOf(name)!);
      if (row?.baseModel) out.set(name, row.baseModel);
    }
  } finally {
    await h.close();
  }
  return out;
}

/**
 * Refuses (UsageError: exit 2) a judge, code writer or critic that is an agent, its base or a checkpoint of
 * either, unless `allow`; returns the pairs a forced run records. The scripted mock grader is exempt: its
 * rule-based scores do not come from the agent's model. `otherFlags` names the flags that choose another.
 */
export function checkSelfJudge(
  agents: readonly string[],
  graders: readonly { model: string | null | undefined; role: GraderRole }[],
  opts: { allow: boolean | undefined; bases: CheckpointBases; otherFlags: string },
): SelfJudgePair[] {
  const scripted = (m: string) => {
    try {
      return providerOf(m) === 'mock';
    } catch {
      return false; // an unknown name is refused where it is called; here it relates by name only
    }
  };
  const real = graders.flatMap((g) => (g.model && !scripted(g.model) ? [{ model: g.model, role: g.role }] : []));
  const pairs = selfJudgePairs(agents, real, (n) => opts.bases.get(n));
  if (pairs.length > 0 && !opts.allow) throw new UsageError(selfJudgeRefusal(pairs, opts.otherFlags));
  return pairs;
}

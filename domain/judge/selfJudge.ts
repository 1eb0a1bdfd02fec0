// Self-judging (issue 27, item 4): a judge, code writer or critic that IS the agent it grades, the agent's
// base model, or a checkpoint of either, grades its own kind of output. The CLI refuses such a pairing
// unless `--allow-self-judge`, and a forced run records the pairs in its config (`selfJudge`) so its report
// says so. Pure: what a checkpoint was trained from comes in as `baseOf` (the CLI reads it from Postgres).

/**
 * How a grading model relates to an agent:
 * - `same`: the same model name;
 * - `base`: the grader is the agent's base model (the agent is a `ckpt:<id>` trained from it);
 * - `checkpoint`: the grader is a checkpoint of the agent, or of the agent's base (a sibling checkpoint).
 */
export type SelfJudgeRelation = 'same' | 'base' | 'checkpoint';

/** The roles a model grades agents in: the description score, the code written from it, GRPO step rewards. */
export type GraderRole = 'judge' | 'coder' | 'critic';

/** One refused (or, when forced, recorded) pairing; stored as `selfJudge: SelfJudgePair[]` in a run's config. */
export interface SelfJudgePair {
  agent: string;
  /** The grading model (judge, code writer or critic: see `role`). */
  judge: string;
  role: GraderRole;
  relation: SelfJudgeRelation;
}

/** What a `ckpt:<id>` model was trained from (its registry base model); undefined for other names or unknown ids. */
export type BaseOf = (model: string) => string | undefined;

export function selfJudgeRelation(agent: string, grader: string, baseOf: BaseOf = () => undefined): SelfJudgeRelation | null {
  if (agent === grader) return 'same';
  const agentBase = baseOf(agent);
  const graderBase = baseOf(grader);
  if (agentBase !== undefined && grader === agentBase) return 'base';
  if (graderBase !== undefined && (graderBase === agent || graderBase === agentBase)) return 'checkpoint';
  return null;
}

/** Every (agent, grader) pair with a relation, in the order given. */
export function selfJudgePairs(
  agents: readonly string[],
  graders: readonly { model: string; role: GraderRole }[],
  baseOf: BaseOf = () => undefined,
): SelfJudgePair[] {
  const out: SelfJudgePair[] = [];
  for (const g of graders)
    for (const agent of agents) {
      const relation = selfJudgeRelation(agent, g.model, baseOf);
      if (relation) out.push({ agent, judge: g.model, role: g.role, relation });
    }
  return out;
}

const RELATION_WORDS: Record<SelfJudgeRelation, string> = {
  same: 'is the agent itself',
  base: "is the agent's base model",
  checkpoint: "is a checkpoint of the agent or of the agent's base",
};

/** One line per pair: `local/x (judge) is the agent itself: agent local/x, relation same`. */
export function describeSelfJudge(pairs: readonly SelfJudgePair[]): string {
  return pairs.map((p) => `${p.judge} (${p.role}) ${RELATION_WORDS[p.relation]}: agent ${p.agent}, relation ${p.relation}`).join('; ');
}

/** The refusal's message: both models, the relation, and what to do (another model, or the flag). */
export function selfJudgeRefusal(pairs: readonly SelfJudgePair[], otherFlags: string): string {
  return (
    `self-judging refused: ${describeSelfJudge(pairs)}. A model grading itself, its base or its own checkpoints shares their ` +
    `blind spots, so its scores are not a measurement. Choose another model (${otherFlags}), or pass --allow-self-judge ` +
    'to run it anyway (the run records the relation in its config, field selfJudge, and its report says so).'
  );
}

/** `held` with the pairs of `pairs` it does not hold yet (one per agent, grader and role), in order. */
export function withSelfJudgePairs(held: readonly SelfJudgePair[], pairs: readonly SelfJudgePair[]): SelfJudgePair[] {
  const key = (p: SelfJudgePair) => `${p.agent}\u0000${p.judge}\u0000${p.role}`;
  const seen = new Set(held.map(key));
  return [...held, ...pairs.filter((p) => !seen.has(key(p)))];
}

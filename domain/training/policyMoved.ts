// The gate a trained checkpoint passes before its evaluation is read as an effect (docs/training.md, "Did the
// policy move?"): the mean per-token KL(checkpoint || base) on the evaluation episodes' agent turns (the
// trainer's policy-shift job) and the share of evaluation episodes whose greedy transcript departs from the
// base's on the same method. A checkpoint below either threshold did not move: its comparisons read
// "inconclusive: the policy did not move", never a null. Pure.

/** The patch (workflows' `patched()`) under which a training run's evaluation measures the gate. */
export const POLICY_MOVED_PATCH = 'policy-moved-gate';

/** The KL of a policy-shift job's done metrics (null when it measured nothing). */
export function shiftKl(metrics: Record<string, unknown>): { mean: number; tokens: number } | null {
  const mean = metrics.kl_mean;
  const tokens = metrics.tokens;
  return typeof mean === 'number' && Number.isFinite(mean) ? { mean, tokens: typeof tokens === 'number' ? tokens : 0 } : null;
}

/** Thresholds, set before measuring (docs/training.md): KL >= 0.01 nats per agent token and >= 25 % of episodes departing. */
export const MOVED_THRESHOLDS = { minKl: 0.01, minDeparted: 0.25 } as const;
export type MovedThresholds = { minKl: number; minDeparted: number };

export interface PolicyMovedGate {
  /** Token-mean KL(checkpoint || base) over the checkpoint's evaluation agent tokens (null: not measured). */
  klMean: number | null;
  klTokens: number;
  /** Methods where both the checkpoint and the base have an evaluation episode, and those whose agent turns differ. */
  compared: number;
  departed: number;
  departedShare: number | null;
  thresholds: MovedThresholds;
  moved: boolean;
}

/** One agent turn as the gate compares it: what the policy wrote (its text and its tool calls' arguments). */
export interface AgentTurn {
  content: string;
  calls: string[];
}

/** The agent turns of an OpenAI chat transcript (assistant messages: text and tool calls' name and arguments). */
export function agentTurns(messages: readonly { role: string; content?: unknown; tool_calls?: unknown }[]): AgentTurn[] {
  return messages
    .filter((m) => m.role === 'assistant')
    .map((m) => ({
      content: typeof m.content === 'string' ? m.content : '',
      calls: Array.isArray(m.tool_calls)
        ? m.tool_calls.map((c: { function?: { name?: string; arguments?: string } }) => `${c.function?.name ?? ''}(${c.function?.arguments ?? ''})`)
        : [],
    }));
}

/** Whether a checkpoint's greedy transcript departs from the base's: any agent turn differs, or their number. */
export function transcriptDeparts(checkpoint: readonly AgentTurn[], base: readonly AgentTurn[]): boolean {
  if (checkpoint.length !== base.length) return true;
  return checkpoint.some((t, i) => {
    const b = base[i]!;
    return t.content.trim() !== b.content.trim() || t.calls.length !== b.calls.length || t.calls.some((c, k) => c !== b.calls[k]);
  });
}

export function policyMovedGate(
  kl: { mean: number; tokens: number } | null,
  departure: { compared: number; departed: number },
  thresholds: MovedThresholds = MOVED_THRESHOLDS,
): PolicyMovedGate {
  const share = departure.compared > 0 ? departure.departed / departure.compared : null;
  const moved = kl !== null && kl.mean >= thresholds.minKl && share !== null && share >= thresholds.minDeparted;
  return {
    klMean: kl?.mean ?? null,
    klTokens: kl?.tokens ?? 0,
    compared: departure.compared,
    departed: departure.departed,
    departedShare: share,
    thresholds: { ...thresholds },
    moved,
  };
}

/** The gate in one line, as every report prints it beside the checkpoint. */
export function gateLine(g: PolicyMovedGate): string {
  const kl = g.klMean === null ? 'KL not measured' : `KL ${g.klMean.toFixed(4)} nats/token over ${g.klTokens} agent tokens`;
  const dep =
    g.departedShare === null ? 'no episode pair' : `${g.departed} of ${g.compared} episodes depart from the base (${(100 * g.departedShare).toFixed(0)} %)`;
  const need = `needs KL >= ${g.thresholds.minKl} and >= ${(100 * g.thresholds.minDeparted).toFixed(0)} % departing`;
  return g.moved ? `the policy moved: ${kl}; ${dep}` : `inconclusive: the policy did not move (${kl}; ${dep}; ${need})`;
}

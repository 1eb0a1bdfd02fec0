// The contradiction classifier activity (queue `pau`): the judge model reads the episode's final
// description beside the agent's own observations (its calls or examples that say something about the
// method: not its own argument mistakes, not sandbox limits) and classifies the description as
// consistent / omits / contradicts, citing the observation. Through the llm_calls cache like every call.
import { eq } from 'drizzle-orm';
import type { ModelParams } from '../../domain/llm/modelParams';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { methods } from '../../db/schema/datasets';
import { episodes } from '../../db/schema/runs';
import { observedCalls } from '../../domain/episode/observedCalls';
import { buildContradictionMessages, parseContradiction, type ContradictionResult } from '../../domain/judge/contradictionPrompt';
import { isEvidence } from '../../domain/judge/diagnostics';
import { loadSteps } from '../episode/steps';
import { activityChatDeps } from '../llm/activity';
import { chat } from '../llm/chat';
import { entryPointOf } from '../../domain/dataset/entryPoint';

export function createContradictionActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    async classifyContradiction(input: { episodeId: string; judgeModel: string; params?: ModelParams }): Promise<ContradictionResult> {
      const [row] = await db()
        .select({ e: episodes, m: methods })
        .from(episodes)
        .innerJoin(methods, eq(methods.id, episodes.methodId))
        .where(eq(episodes.id, input.episodeId))
        .limit(1);
      if (!row) throw new Error(`no episode ${input.episodeId}`);
      const { e, m } = row;
      const entryPoint = entryPointOf(m);
      const observations = observedCalls(await loadSteps(db(), e.id))
        .filter((o) => isEvidence(o.result))
        .map((o) => ({ arguments: o.arguments, ok: o.ok, text: o.text }));
      const messages = buildContradictionMessages({
        signature: m.signature ?? `def ${entryPoint}(...)`,
        entryPoint,
        description: e.finalDescription ?? '',
        observations,
      });
      const r = await chat(
        {
          model: input.judgeModel,
          messages,
          ...(input.params ? { params: input.params } : {}),
          callKey: `judge/${e.id}/${input.judgeModel}/contradiction`,
          about: { methodId: m.id },
        },
        activityChatDeps(db, endpoints),
      );
      const text = r.message.content ?? r.message.refusal ?? '';
      const parsed = parseContradiction(text, observations.length);
      return {
        verdict: parsed?.verdict ?? null,
        cited: (parsed?.cited ?? []).map((n) => ({ n, arguments: observations[n - 1]!.arguments, observation: observations[n - 1]!.text })),
        observations: observations.length,
        rationale: text,
        tokensIn: r.tokensIn,
        tokensOut: r.tokensOut,
        costUsd: r.costUsd,
      };
    },
  };
}

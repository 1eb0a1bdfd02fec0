// Reference descriptions (`pau dataset describe`), queue `pau`: which methods need one, the describing
// model's answer, the coder's code from that description, and the verdict: code match against the original
// on the method's held-out inputs (the sandbox runs happen in the workflow, on `pau-sandbox`), kept when it
// reaches the threshold. Every attempt is stored with its provenance in `reference_descriptions`.
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { sha256Hex } from '../../domain/common/hash';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { datasetMethods, methods } from '../../db/schema/datasets';
import { referenceDescriptions } from '../../db/schema/descriptions';
import { buildDescribeMessages, DESCRIBE_PROMPT_VERSION, extractDescription, keepsDescription } from '../../domain/describe/describePrompt';
import type { DescribeMethodResult, DescribeSplit } from '../../domain/describe/types';
import { type CodeMatchPlan, codeMatchPlan, countedInputs, DEFAULT_HELDOUT } from '../../domain/judge/codeMatch';
import { buildCoderMessages, extractCode } from '../../domain/judge/coderPrompt';
import { DEFAULT_EQUALITY, outcomesEqual } from '../../domain/judge/outcomeEquality';
import type { CallResult } from '../../domain/sandbox/schemas';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { activityChatDeps } from '../llm/activity';
import { chat } from '../llm/chat';
import { entryPointOf } from '../../domain/dataset/entryPoint';

async function loadMethod(db: Db, methodId: string) {
  const [m] = await db.select().from(methods).where(eq(methods.id, methodId)).limit(1);
  if (!m) throw ApplicationFailure.nonRetryable(`method ${methodId} is not in the methods table`, FAILURE_TYPES.methodNotFound);
  return m;
}

export function createDescribeActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    /** Members of the dataset (split) without a gold description and without an attempt by this model and prompt (all with `force`). */
    async listMethodsToDescribe(input: { dataset: string; split: DescribeSplit; model: string; force?: boolean; limit?: number }): Promise<string[]> {
      const conds = [eq(datasetMethods.datasetName, input.dataset), isNull(methods.goldDescription)];
      if (input.split !== 'all') conds.push(eq(datasetMethods.split, input.split));
      const rows = await db()
        .select({ id: methods.id, attempted: referenceDescriptions.methodId })
        .from(datasetMethods)
        .innerJoin(methods, eq(methods.id, datasetMethods.methodId))
        .leftJoin(
          referenceDescriptions,
          and(
            eq(referenceDescriptions.methodId, methods.id),
            eq(referenceDescriptions.model, input.model),
            eq(referenceDescriptions.promptVersion, DESCRIBE_PROMPT_VERSION),
          ),
        )
        .where(and(...conds))
        .orderBy(asc(datasetMethods.split), asc(datasetMethods.position));
      const ids = rows.filter((r) => input.force || r.attempted === null).map((r) => r.id);
      return input.limit ? ids.slice(0, input.limit) : ids;
    },

    /** What the sandbox runs: the method and its code-match inputs (the judge's set: dataset held-out inputs). */
    async planDescription(input: { methodId: string }): Promise<CodeMatchPlan> {
      const plan = codeMatchPlan(await loadMethod(db(), input.methodId), DEFAULT_HELDOUT);
      return { ...plan, excluded: plan.excluded ?? (plan.heldout.length === 0 ? 'no-heldout-inputs' : null) };
    },

    /** The describing model's description of the code. */
    async describeMethodCode(input: {
      methodId: string;
      model: string;
    }): Promise<{ description: string; tokensIn: number; tokensOut: number; costUsd: number }> {
      const m = await loadMethod(db(), input.methodId);
      const messages = buildDescribeMessages({ signature: m.signature ?? `def ${entryPointOf(m)}(...):`, code: m.code });
      const r = await chat(
        { model: input.model, messages, callKey: `describe/${DESCRIBE_PROMPT_VERSION}/${input.model}/${m.id}`, about: { methodId: m.id } },
        activityChatDeps(db, endpoints),
      );
      return { description: extractDescription(r.message.content ?? r.message.refusal), tokensIn: r.tokensIn, tokensOut: r.tokensOut, costUsd: r.costUsd };
    },

    /** The coder's code from the signature and the description alone (the judge's coder prompt). */
    async writeCodeFromReference(input: { methodId: string; coderModel: string; description: string }): Promise<{ code: string | null }> {
      const m = await loadMethod(db(), input.methodId);
      const entry = entryPointOf(m);
      const messages = buildCoderMessages({ signature: m.signature ?? `def ${entry}(...):`, entryPoint: entry, description: input.description });
      const r = await chat(
        {
          model: input.coderModel,
          messages,
          callKey: `describe/${DESCRIBE_PROMPT_VERSION}/code/${input.coderModel}/${m.id}/${sha256Hex(input.description).slice(0, 16)}`,
          about: { methodId: m.id },
        },
        activityChatDeps(db, endpoints),
      );
      return { code: extractCode(r.message.content, entry) };
    },

    /** Code match on the held-out inputs, the verdict, and one upsert keyed (method, model, prompt version). */
    async recordReferenceDescription(input: {
      plan: CodeMatchPlan;
      model: string;
      coderModel: string;
      threshold: number;
      description: string | null;
      code: string | null;
      original: CallResult[];
      candidate: CallResult[] | null;
      runWorkflowId?: string;
    }): Promise<DescribeMethodResult> {
      const { plan } = input;
      let codeMatch: number | null = null;
      let reason: string | null = null;
      if (plan.excluded) reason = `code-match-excluded: ${plan.excluded}`;
      else if (!input.description) reason = 'empty-description';
      else if (!input.code || !input.candidate) reason = 'no-code';
      else {
        const counted = countedInputs(input.original, plan.nGiven, plan.raisingCounts);
        const cand = input.candidate;
        if (counted.length === 0) reason = 'no-heldout-inputs';
        else codeMatch = counted.filter((i) => cand[i] !== undefined && outcomesEqual(input.original[i]!, cand[i], DEFAULT_EQUALITY)).length / counted.length;
      }
      const accepted = reason === null && keepsDescription(codeMatch, input.threshold);
      if (reason === null && !accepted) reason = `code match ${codeMatch?.toFixed(3)} below ${input.threshold}`;
      const values = {
        methodId: plan.methodId,
        model: input.model,
        promptVersion: DESCRIBE_PROMPT_VERSION,
        description: input.description ?? '',
        coderModel: input.coderModel,
        codeMatch,
        threshold: input.threshold,
        status: accepted ? ('accepted' as const) : ('rejected' as const),
        reason,
        generatedCode: input.code,
        detail: { heldout: plan.heldout.length, nGiven: plan.nGiven, ...(input.runWorkflowId ? { run: input.runWorkflowId } : {}) },
        createdAt: new Date(),
      };
      await db()
        .insert(referenceDescriptions)
        .values(values)
        .onConflictDoUpdate({ target: [referenceDescriptions.methodId, referenceDescriptions.model, referenceDescriptions.promptVersion], set: values });
      return { methodId: plan.methodId, status: values.status, codeMatch, reason };
    },
  };
}

export type DescribeActivities = ReturnType<typeof createDescribeActivities>;

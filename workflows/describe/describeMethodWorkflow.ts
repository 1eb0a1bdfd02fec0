// One method's reference description: the describing model writes it, the coder writes code from it
// alone, the sandbox runs the original and that code on the method's held-out inputs, and the description
// is kept when the code matches (activities/describe). Started by describeMethodsWorkflow, id
// `describe/<model>/<methodId>`. A method the dataset excluded from code match is recorded as rejected
// without asking any model.
import type { DescribeMethodInput, DescribeMethodResult } from '../../domain/describe/types';
import { judge } from '../proxies/mainQueue';
import { sandbox } from '../proxies/sandboxQueue';

export async function describeMethodWorkflow(input: DescribeMethodInput): Promise<DescribeMethodResult> {
  const plan = await judge.planDescription({ methodId: input.methodId });
  const base = {
    plan,
    model: input.model,
    coderModel: input.coderModel,
    threshold: input.threshold,
    ...(input.runWorkflowId ? { runWorkflowId: input.runWorkflowId } : {}),
  };
  if (plan.excluded) return judge.recordReferenceDescription({ ...base, description: null, code: null, original: [], candidate: null });
  const { description } = await judge.describeMethodCode({ methodId: input.methodId, model: input.model });
  const { code } = description ? await judge.writeCodeFromReference({ methodId: input.methodId, coderModel: input.coderModel, description }) : { code: null };
  const [original, candidate] = await Promise.all([
    sandbox.runMethodBatch({ source: plan.source, entry: plan.entryPoint, calls: plan.heldout }),
    // Code that does not compile is a failed description, not a failed workflow.
    code ? sandbox.runMethodBatch({ source: code, entry: plan.entryPoint, calls: plan.heldout, allowSourceError: true }) : Promise.resolve(null),
  ]);
  return judge.recordReferenceDescription({ ...base, description, code, original: original.results, candidate: candidate?.results ?? null });
}

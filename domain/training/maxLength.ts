// How long a trained conversation may be (issue 23, item 2). Training and serving must agree: llama.cpp serves
// a local model with `ctxPerSlot` tokens per request (8,192 for the Qwen2.5-Coder models, 4,096 for SmolLM2:
// domain/llm/localModels.ts, overridable in the models file), so a transcript the model was served fits that,
// and the trainer's limit defaults to it. A longer limit would train sequences the served model never sees;
// the trainer drops (never cuts) a longer conversation and counts it, and refuses a job that would drop more
// than 1 %. Pure.

/** The max_length of a training run on a base served with `servingContext` tokens per slot. */
export function trainingMaxLength(servingContext: number, given: number | undefined): { maxLength: number } | { error: string } {
  if (given === undefined) return { maxLength: servingContext };
  if (given > servingContext) {
    return {
      error:
        `--max-length ${given} is longer than the base's serving context (${servingContext} tokens per slot): ` +
        'the model would be trained on sequences it is never served. Leave it out (the default is the serving context) or lower it.',
    };
  }
  return { maxLength: given };
}

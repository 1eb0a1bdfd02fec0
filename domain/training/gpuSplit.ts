// The GPUs of one host split between serving (vLLM entries' `vllm.gpus`) and training (PAU_TRAINER_GPUS), as
// CUDA_VISIBLE_DEVICES sets (docs/scale.md: why sets rather than vLLM's sleep/wake). Pure: the
// pau-gpu worker checks the split at start and the trainer's child gets its set (trainerProcess.ts).

/** `0,1,2` or `0-5` or `0-3,6` -> [0, 1, 2, ...]; a GPU listed twice or a bad token is an error naming it. */
export function parseGpuList(raw: string, what = 'PAU_TRAINER_GPUS'): number[] {
  const out: number[] = [];
  for (const token of raw.split(',').map((s) => s.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(token);
    if (!m) throw new Error(`${what}=${JSON.stringify(raw)}: ${JSON.stringify(token)} is not a GPU index or a range a-b`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new Error(`${what}=${JSON.stringify(raw)}: range ${token} runs backwards`);
    for (let g = from; g <= to; g++) {
      if (out.includes(g)) throw new Error(`${what}=${JSON.stringify(raw)}: GPU ${g} is listed twice`);
      out.push(g);
    }
  }
  return out;
}

export interface GpuSplitInput {
  /** PAU_TRAINER_GPUS parsed; undefined: the trainer sees every GPU. */
  trainer?: number[];
  /** The vLLM servers this host's stack starts, with their `vllm.gpus` (undefined: every GPU). */
  servers: { name: string; gpus?: number[] }[];
  /** GPUs on the host (nvidia-smi), when known. */
  visible?: number;
}

export interface GpuSplit {
  /** Why this split cannot work (the worker refuses to start), or undefined. */
  problem?: string;
  /** One line for the worker's start: who has which GPUs, and a warning when serving and training share. */
  line: string;
}

const list = (g: number[] | undefined) => (g ? g.join(',') : 'all');

export function gpuSplit(input: GpuSplitInput): GpuSplit {
  const owners: { name: string; gpus?: number[] }[] = [
    ...input.servers,
    { name: 'the trainer (PAU_TRAINER_GPUS)', ...(input.trainer ? { gpus: input.trainer } : {}) },
  ];
  const line = `GPUs: ${owners.map((o) => `${o.name} ${list(o.gpus)}`).join('; ')}`;
  if (input.visible !== undefined) {
    for (const o of owners) {
      const missing = (o.gpus ?? []).filter((g) => g >= input.visible!);
      if (missing.length > 0) return { problem: `${o.name} names GPU ${missing.join(',')}, but this host has ${input.visible} (0-${input.visible - 1})`, line };
    }
  }
  if (input.servers.length === 0) return { line };
  for (let i = 0; i < owners.length; i++) {
    for (let j = i + 1; j < owners.length; j++) {
      const a = owners[i]!;
      const b = owners[j]!;
      if (!a.gpus || !b.gpus) continue;
      const shared = a.gpus.filter((g) => b.gpus!.includes(g));
      if (shared.length > 0) return { problem: `${a.name} and ${b.name} both use GPU ${shared.join(',')}: give each its own set`, line };
    }
  }
  const unsplit = owners.filter((o) => !o.gpus).map((o) => o.name);
  if (unsplit.length > 0)
    return {
      line: `${line} (shared: ${unsplit.join(' and ')} see every GPU; vLLM holds its memory share on each, so a training job runs out of memory beside it: set vllm.gpus and PAU_TRAINER_GPUS)`,
    };
  return { line };
}

// Which accelerator this host has: a CUDA GPU (nvidia-smi lists one) or the CPU. The vLLM server starts only on
// CUDA; the doctor's `pau-gpu` part and the worker's start line report it.
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface DeviceInfo {
  kind: 'cuda' | 'cpu';
  description: string;
  /** GPUs nvidia-smi lists (0 on a CPU host). */
  gpus: number;
}

export async function detectDevice(): Promise<DeviceInfo> {
  try {
    const { stdout } = await run('nvidia-smi', ['--query-gpu=name,memory.total,driver_version', '--format=csv,noheader'], { timeout: 10_000 });
    const gpus = stdout.trim().split('\n').filter(Boolean);
    if (gpus.length > 0) return { kind: 'cuda', description: gpus.map((g, i) => `GPU${i}: ${g.trim()}`).join('; '), gpus: gpus.length };
  } catch {
    /* no nvidia-smi, or it failed: no usable NVIDIA GPU */
  }
  return { kind: 'cpu', description: `cpu only (${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB)`, gpus: 0 };
}

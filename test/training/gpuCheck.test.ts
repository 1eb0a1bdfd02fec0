// check:gpu's parts that need no GPU: arguments, the GPU count (nvidia-smi + CUDA_VISIBLE_DEVICES), the plan,
// the figures table, and the script itself on a host where CUDA programs see no GPU (one line, exit 3).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { UsageError } from '../../scripts/lib/args';
import { formatFigures, GPU_CHECK_EXIT, gpuCheckPlan, lossGap, parseGpuCheckArgs, processesOf, sftBatch, visibleGpus } from '../../harness/gpu/gpuCheck';

const SMI = [
  'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaa)',
  'GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbb)',
  'GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-ccc)',
].join('\n');

describe('check:gpu arguments and plan', () => {
  it('parses its options and refuses bad ones with a specific message', () => {
    expect(parseGpuCheckArgs([])).toMatchObject({ model: 'qwen2.5-coder-0.5b', 'cpu-threads': 8 });
    expect(parseGpuCheckArgs(['--processes', '4', '--model', 'smollm2-135m', '--skip-episode'])).toMatchObject({
      processes: 4,
      model: 'smollm2-135m',
      'skip-episode': true,
    });
    expect(() => parseGpuCheckArgs(['--processes', '0'])).toThrow(/--processes: Too small/);
    expect(() => parseGpuCheckArgs(['--model', 'qwen3-8b'])).toThrow(UsageError);
    expect(() => parseGpuCheckArgs(['--gpus', '2'])).toThrow(/Unknown option '--gpus'/);
  });

  it('counts the GPUs CUDA will see', () => {
    expect(visibleGpus(SMI, undefined)).toHaveLength(3);
    expect(visibleGpus(SMI, '2,0').map((g) => g.slice(0, 5))).toEqual(['GPU 2', 'GPU 0']);
    expect(visibleGpus(SMI, 'GPU-bbb')).toHaveLength(1);
    expect(visibleGpus(SMI, '')).toEqual([]);
    expect(visibleGpus(SMI, '-1')).toEqual([]);
    expect(visibleGpus(SMI, '0,7,1')).toHaveLength(1); // CUDA stops at the first invalid entry
    expect(visibleGpus('No devices were found', undefined)).toEqual([]);
  });

  it('plans one process per visible GPU unless told otherwise', () => {
    const args = parseGpuCheckArgs([]);
    const gpus = visibleGpus(SMI, undefined);
    expect(processesOf({ args, gpus })).toBe(3);
    expect(processesOf({ args: parseGpuCheckArgs(['--processes', '2']), gpus })).toBe(2);
    const plan = gpuCheckPlan({ args, gpus });
    expect(plan).toHaveLength(10);
    expect(plan[2]).toContain('3 processes (PAU_TRAINER_PROCESSES=3: torchrun + DDP over NCCL), batch 6 conversations');
    expect(plan.join('\n')).toMatch(/vllm serve .* LoRA module "gpu-check"/);
    expect(gpuCheckPlan({ args: parseGpuCheckArgs(['--skip-episode']), gpus: [] })[2]).toContain('1 process (PAU_TRAINER_PROCESSES=1: no torchrun)');
    expect(gpuCheckPlan({ args: parseGpuCheckArgs(['--skip-episode']), gpus })[8]).toContain('skipped');
    expect(sftBatch(8)).toBe(16);
  });

  it('prints each step beside the CPU figure with the loss gap', () => {
    const table = formatFigures({
      processes: 2,
      gpu: { sft: { loss: 2.0, tokensPerS: 5000, stepS: 0.2, peakMemoryBytes: 3 * 2 ** 30 } },
      cpu: { sft: { loss: 2.02, tokensPerS: 40, stepS: 9 } },
    });
    expect(table).toMatch(/sft loss\s+2\s+2\.02\s+0\.99 %/);
    expect(table).toMatch(/sft peak GPU memory\s+3\.00 GiB/);
    expect(table).toMatch(/grpo loss\s+-\s+-\s+-/);
    expect(lossGap(1.1, 1.0)).toBeCloseTo(0.1);
    expect(lossGap(null, 1)).toBeNull();
  });
});

describe('check:gpu without CUDA', () => {
  it('says so in one line and exits 3, running nothing', () => {
    // CUDA_VISIBLE_DEVICES="" hides every GPU from CUDA programs, so this holds on a GPU host too
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'harness/gpu/checkGpu.ts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CUDA_VISIBLE_DEVICES: '' },
    });
    expect(r.status).toBe(GPU_CHECK_EXIT.noCuda);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^check:gpu: no CUDA device on this host \(.+\); nothing was run \(exit 3\)$/);
  }, 60_000);
});

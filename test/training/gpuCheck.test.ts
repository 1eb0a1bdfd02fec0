// check:gpu itself on a host where CUDA programs see no GPU: one line and the memory step's estimate, exit 3. Its pure parts (arguments,
// GPU count, what a host lacks, plan, failures, table): gpuCheck.pure.test.ts.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { GPU_CHECK_EXIT } from '../../harness/gpu/gpuCheck';

describe('check:gpu without CUDA', () => {
  it('says so in one line, prints the memory estimate labelled as one, and exits 3, running nothing', () => {
    // CUDA_VISIBLE_DEVICES="" hides every GPU from CUDA programs, so this holds on a GPU host too
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'harness/gpu/checkGpu.ts'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CUDA_VISIBLE_DEVICES: '' },
    });
    expect(r.status).toBe(GPU_CHECK_EXIT.noCuda);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^check:gpu: no CUDA device on this host \(.+\); nothing was run \(exit 3\)$/);
    // the largest installed local base's estimate, or why there is none (a models directory without models)
    expect(lines[1]).toMatch(
      /^memory step (\(estimate from the shape, not measured: no GPU here\): a LoRA update of local\/.* GiB \(weights|: estimate unavailable)/,
    );
  }, 60_000);
});

describe('check:gpu --plan', () => {
  it('lists the steps GRPO runs, on any host, and exits 0', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'harness/gpu/checkGpu.ts', '--plan'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CUDA_VISIBLE_DEVICES: '' },
    });
    expect(r.status).toBe(GPU_CHECK_EXIT.ok);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('check:gpu plan (no GPU visible here):');
    expect(lines).toHaveLength(15); // the header, 13 steps, the memory estimate
    expect(lines[14]).toMatch(/^memory step[ :]/);
    expect(lines[1]).toMatch(/^ 1\. host: NVIDIA driver new enough for the trainer's CUDA/);
    expect(r.stdout).toContain('the trainer must report dtype bfloat16');
    expect(r.stdout).toMatch(/its gradient norm \(before clipping\) within 5 %/);
    expect(r.stdout).toContain(`registry's vllm kind: a models file entry "gpu-check-vllm"`);
    expect(r.stdout).toContain('loaded at run time as LoRA module "gpu-check" (POST /v1/load_lora_adapter');
    expect(r.stdout).toContain('one tool episode:');
    expect(r.stdout).toMatch(/ 8\. memory: a LoRA update .* over an 8,192-token rollout/);
  }, 60_000);
});

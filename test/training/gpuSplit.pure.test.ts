// The split of one host's GPUs between the vLLM servers and the trainer (domain/training/gpuSplit.ts).
import { describe, expect, it } from 'vitest';
import { gpuSplit, parseGpuList } from '../../domain/training/gpuSplit';

describe('GPU split between serving and training', () => {
  it('parses index lists and ranges, and says what is wrong with a bad one', () => {
    expect(parseGpuList('0-5')).toEqual([0, 1, 2, 3, 4, 5]);
    expect(parseGpuList('2, 3,6-7')).toEqual([2, 3, 6, 7]);
    expect(() => parseGpuList('0-3,2')).toThrow('PAU_TRAINER_GPUS="0-3,2": GPU 2 is listed twice');
    expect(() => parseGpuList('5-2')).toThrow('range 5-2 runs backwards');
    expect(() => parseGpuList('gpu0')).toThrow('"gpu0" is not a GPU index or a range a-b');
  });

  it('8 GPUs: vLLM on 6,7 and the trainer on 0-5 is a split; overlaps and missing GPUs are refused', () => {
    const ok = gpuSplit({ trainer: [0, 1, 2, 3, 4, 5], servers: [{ name: 'vllm/qwen3-8b', gpus: [6, 7] }], visible: 8 });
    expect(ok).toEqual({ line: 'GPUs: vllm/qwen3-8b 6,7; the trainer (PAU_TRAINER_GPUS) 0,1,2,3,4,5' });
    expect(gpuSplit({ trainer: [0, 1, 2, 3, 4, 5, 6], servers: [{ name: 'vllm/qwen3-8b', gpus: [6, 7] }], visible: 8 }).problem).toBe(
      'vllm/qwen3-8b and the trainer (PAU_TRAINER_GPUS) both use GPU 6: give each its own set',
    );
    expect(
      gpuSplit({
        trainer: [0],
        servers: [
          { name: 'a', gpus: [1] },
          { name: 'b', gpus: [1, 2] },
        ],
      }).problem,
    ).toBe('a and b both use GPU 1: give each its own set');
    expect(gpuSplit({ trainer: [0, 8], servers: [{ name: 'v', gpus: [1] }], visible: 8 }).problem).toBe(
      'the trainer (PAU_TRAINER_GPUS) names GPU 8, but this host has 8 (0-7)',
    );
  });

  it('serving and training on the same GPUs: allowed, with the warning in the line; no server: nothing to split', () => {
    const shared = gpuSplit({ servers: [{ name: 'v', gpus: [7] }], visible: 8 });
    expect(shared.problem).toBeUndefined();
    expect(shared.line).toMatch(/^GPUs: v 7; the trainer \(PAU_TRAINER_GPUS\) all \(shared: the trainer \(PAU_TRAINER_GPUS\) see every GPU;/);
    expect(gpuSplit({ servers: [], visible: 8 })).toEqual({ line: 'GPUs: the trainer (PAU_TRAINER_GPUS) all' });
  });
});

// Sampled-with = trained-on (pure): a GRPO batch is trained only when every rollout was sampled with the
// adapter the update computes its old log-probs with, and nothing else; a refusal names both hashes.
import { describe, expect, it } from 'vitest';
import { BASE_ADAPTER, sampledWithLabel, sampledWithRefusal } from '../../domain/training/sampledWith';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('sampledWithRefusal', () => {
  it('trains a batch sampled by the base alone with a fresh adapter (old log-probs = the base)', () => {
    const batch = [
      { id: 'r0', sampledWith: [BASE_ADAPTER] },
      { id: 'r1', sampledWith: [BASE_ADAPTER] },
    ];
    expect(sampledWithRefusal(batch, BASE_ADAPTER)).toBeNull();
  });

  it('trains a batch sampled by the init adapter alone', () => {
    expect(
      sampledWithRefusal(
        [
          { id: 'r0', sampledWith: [A] },
          { id: 'r1', sampledWith: [A, A] },
        ],
        A,
      ),
    ).toBeNull();
  });

  it('refuses a batch of mixed hashes, naming the odd rollouts, their adapter and the trainer one', () => {
    const msg = sampledWithRefusal(
      [
        { id: 'r0', sampledWith: [A] },
        { id: 'r1', sampledWith: [B] },
        { id: 'r2', sampledWith: [A] },
      ],
      A,
    );
    expect(msg).toContain(`1 of 3 rollouts were not sampled with the adapter the update computes old log-probs with (${A})`);
    expect(msg).toContain(`1 sampled with ${B} (r1)`);
    expect(msg).not.toContain('r0');
  });

  it('refuses a rollout whose turns were served by two adapters (swapped mid-episode)', () => {
    const msg = sampledWithRefusal([{ id: 'r0', sampledWith: [A, B] }], A);
    expect(msg).toContain(`1 of 1 rollouts`);
    expect(msg).toContain(`sampled with ${B} (r0)`);
  });

  it('refuses base rollouts trained with an adapter, and adapter rollouts trained as if by the base', () => {
    const baseBatch = [{ id: 'r0', sampledWith: [BASE_ADAPTER] }];
    expect(sampledWithRefusal(baseBatch, A)).toContain(`(${A}): 1 sampled with base (r0)`);
    const adapterBatch = [{ id: 'r0', sampledWith: [A] }];
    expect(sampledWithRefusal(adapterBatch, BASE_ADAPTER)).toContain(`(base): 1 sampled with ${A} (r0)`);
  });

  it('refuses a rollout with no record of what sampled it, and lists at most three ids per adapter', () => {
    const batch = [{ id: 'r0', sampledWith: [] }, ...Array.from({ length: 5 }, (_, i) => ({ id: `b${i}`, sampledWith: [B] }))];
    const msg = sampledWithRefusal(batch, A);
    expect(msg).toContain('6 of 6 rollouts');
    expect(msg).toContain(`5 sampled with ${B} (b0, b1, b2 and 2 more)`);
    expect(msg).toContain('1 with no record of what sampled them (r0)');
  });
});

describe('sampledWithLabel', () => {
  it('is base without an adapter, the trained sha256 with one, and matches no trainer when its hash is unknown', () => {
    expect(sampledWithLabel({})).toBe(BASE_ADAPTER);
    expect(sampledWithLabel({ served: [] })).toBe(BASE_ADAPTER);
    expect(sampledWithLabel({ trainedSha256: A, served: ['/x/adapter.gguf'] })).toBe(A);
    expect(sampledWithLabel({ served: ['/x/adapter.gguf'] })).toBe('unhashed:/x/adapter.gguf');
    // vLLM's fallback when a checkpoint row has no sha: its directory
    expect(sampledWithLabel({ trainedSha256: '/ckpt/dir', served: ['/ckpt/dir'] })).toBe('unhashed:/ckpt/dir');
    expect(sampledWithRefusal([{ id: 'r0', sampledWith: [sampledWithLabel({ served: ['/x/a.gguf'] })] }], A)).not.toBeNull();
  });
});

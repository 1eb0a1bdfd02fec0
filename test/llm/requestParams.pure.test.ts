// The judge's request params built from what is sent: its token cap, and the extra samples' seed and
// temperature, following the endpoint's rules (reasoning models reject max_tokens and temperature).
import { describe, expect, it } from 'vitest';
import { sampleParams, withTokenLimit } from '../../domain/llm/requestParams';

describe('withTokenLimit', () => {
  it('caps with max_tokens, replacing a larger registry cap', () => {
    expect(withTokenLimit({ temperature: 0, max_tokens: 2048 }, 400)).toEqual({ temperature: 0, max_tokens: 400 });
    expect(withTokenLimit({}, 1)).toEqual({ max_tokens: 1 });
  });
  it("leaves a reasoning model's max_completion_tokens budget as the registry set it, adding no max_tokens", () => {
    expect(withTokenLimit({ max_completion_tokens: 256, reasoning_effort: 'low' }, 8)).toEqual({ max_completion_tokens: 256, reasoning_effort: 'low' });
  });
});

describe('sampleParams', () => {
  it('samples at temperature 1 with seed i where the params set a temperature', () => {
    expect(sampleParams({ temperature: 0, max_tokens: 400 }, 2)).toEqual({ temperature: 1, max_tokens: 400, seed: 2 });
  });
  it("adds no temperature where the params leave it to the endpoint's default", () => {
    expect(sampleParams({ max_completion_tokens: 256 }, 1)).toEqual({ max_completion_tokens: 256, seed: 1 });
  });
});

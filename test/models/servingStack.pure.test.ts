// The serving stack of each arm of a paired evaluation (domain/llm/servingStack.ts): the engine and the base
// weights, the same for a checkpoint and its base on one stack; a pair on two stacks is refused unless allowed.
import { describe, expect, it } from 'vitest';
import { mixedStacksRefusal, servingStackOf } from '../../domain/llm/servingStack';

describe('serving stacks', () => {
  it('a checkpoint and its base on one vLLM entry (or one llama.cpp base) name the same stack', () => {
    const server = { provider: 'vllm' as const, model: 'Qwen/Qwen3-8B' };
    const ckpt = { provider: 'vllm' as const, model: 'ckpt:grpo-r-e1', loraModule: { base: 'Qwen/Qwen3-8B' } };
    expect(servingStackOf(server)).toBe('vLLM Qwen/Qwen3-8B');
    expect(servingStackOf(ckpt)).toBe(servingStackOf(server));
    expect(servingStackOf({ provider: 'vllm', model: 'm', baseUrl: 'http://gpu0:8000/v1' })).toBe('vLLM m at http://gpu0:8000/v1');
    expect(servingStackOf({ provider: 'local', model: 'qwen2.5-coder-0.5b' })).toBe('llama.cpp qwen2.5-coder-0.5b (GGUF)');
    expect(servingStackOf({ provider: 'local', model: 'mine', modelPath: '/m/mine.gguf' })).toBe('llama.cpp /m/mine.gguf (GGUF)');
    expect(servingStackOf({ provider: 'mock', model: 'oracle' })).toBe('scripted mock');
    expect(servingStackOf({ provider: 'openai', model: 'gpt-x', baseUrl: 'https://api.example/v1' })).toBe('OpenAI-compatible gpt-x at https://api.example/v1');
  });

  it('arms on different stacks are refused, naming each; allowed by the flag; one stack passes', () => {
    const arms = [
      { arm: 'checkpoint', model: 'ckpt:grpo-r-e1', stack: 'vLLM Qwen/Qwen3-8B' },
      { arm: 'base', model: 'local/qwen3-8b', stack: 'llama.cpp qwen3-8b (GGUF)' },
    ];
    expect(mixedStacksRefusal(arms, false)).toBe(
      "the paired evaluation's arms are served by different stacks (checkpoint ckpt:grpo-r-e1: vLLM Qwen/Qwen3-8B; base local/qwen3-8b: llama.cpp qwen3-8b (GGUF)): the difference would measure the change of engine and weights beside the training. Serve both by one vllm entry (vllm.loraBases lists the base), or pass --allow-mixed-stacks to compare them anyway",
    );
    expect(mixedStacksRefusal(arms, true)).toBeUndefined();
    expect(mixedStacksRefusal([arms[0]!, { ...arms[1]!, stack: 'vLLM Qwen/Qwen3-8B' }], false)).toBeUndefined();
  });
});

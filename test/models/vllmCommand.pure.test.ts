// The `vllm serve` command line a `vllm` registry entry gets (domain/llm/vllmCommand.ts), and the entry's
// settings that size it (config/models.ts): the tool-call parser the agent's tools need, vLLM's own sampling
// defaults instead of the model's generation_config.json, the Qwen3 reasoning parser, the trainer's max
// length, the GPU set and the concurrency that follows the engine's batch.
import { describe, expect, it } from 'vitest';
import { buildRegistry, modelsFileSchema, VLLM_DEFAULT_MAX_NUM_SEQS, vllmOptionsSchema } from '../../config/models';
import { reasoningParserFor, TRAINER_MAX_LENGTH, vllmCommand } from '../../domain/llm/vllmCommand';

const base = { port: 8000, maxLoraRank: 16, maxLoras: 4, args: [], executable: 'vllm' };
const flag = (args: string[], name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

describe('vllm serve command line', () => {
  it('always: tool calls parsed (hermes), vLLM sampling defaults, max length = the trainer’s', () => {
    const { args, env } = vllmCommand({ ...base, model: 'Qwen/Qwen2.5-Coder-7B-Instruct' });
    expect(args).toEqual([
      'serve',
      'Qwen/Qwen2.5-Coder-7B-Instruct',
      '--host',
      '127.0.0.1',
      '--port',
      '8000',
      '--enable-lora',
      '--max-lora-rank',
      '16',
      '--max-loras',
      '4',
      '--enable-auto-tool-choice',
      '--tool-call-parser',
      'hermes',
      '--generation-config',
      'vllm',
      '--max-model-len',
      '8192',
    ]);
    expect(TRAINER_MAX_LENGTH).toBe(8192);
    expect(env).toEqual({ VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' });
  });

  it('Qwen3 gets the qwen3 reasoning parser; other models none; an entry can override or turn it off', () => {
    expect(reasoningParserFor('Qwen/Qwen3-8B')).toBe('qwen3');
    expect(reasoningParserFor('/models/qwen3-0.6b-base')).toBe('qwen3');
    expect(reasoningParserFor('Qwen/Qwen2.5-Coder-0.5B-Instruct')).toBeUndefined();
    expect(reasoningParserFor('HuggingFaceTB/SmolLM2-135M-Instruct')).toBeUndefined();
    expect(flag(vllmCommand({ ...base, model: 'Qwen/Qwen3-8B' }).args, '--reasoning-parser')).toBe('qwen3');
    expect(vllmCommand({ ...base, model: 'Qwen/Qwen2.5-Coder-0.5B' }).args).not.toContain('--reasoning-parser');
    expect(vllmCommand({ ...base, model: 'Qwen/Qwen3-8B', reasoningParser: null }).args).not.toContain('--reasoning-parser');
    expect(flag(vllmCommand({ ...base, model: 'm', reasoningParser: 'deepseek_r1' }).args, '--reasoning-parser')).toBe('deepseek_r1');
  });

  it('a GPU set: CUDA_VISIBLE_DEVICES for the server, tensor parallel over exactly those GPUs', () => {
    const two = vllmCommand({ ...base, model: 'm', gpus: [6, 7] });
    expect(two.env.CUDA_VISIBLE_DEVICES).toBe('6,7');
    expect(flag(two.args, '--tensor-parallel-size')).toBe('2');
    const one = vllmCommand({ ...base, model: 'm', gpus: [7] });
    expect(one.env.CUDA_VISIBLE_DEVICES).toBe('7');
    expect(one.args).not.toContain('--tensor-parallel-size');
    expect(flag(vllmCommand({ ...base, model: 'm', maxModelLen: 16384, maxNumSeqs: 128 }).args, '--max-model-len')).toBe('16384');
    expect(flag(vllmCommand({ ...base, model: 'm', maxNumSeqs: 128 }).args, '--max-num-seqs')).toBe('128');
  });
});

describe('vllm entry settings', () => {
  const registry = (models: unknown) => buildRegistry(modelsFileSchema.parse({ models }));

  it('maxConcurrency follows the engine’s --max-num-seqs unless set', () => {
    const r = registry({
      d: { provider: 'vllm', model: 'm' },
      s: { provider: 'vllm', model: 'm', vllm: { maxNumSeqs: 128 } },
      o: { provider: 'vllm', model: 'm', maxConcurrency: 8, vllm: { maxNumSeqs: 128 } },
      other: { provider: 'openai', model: 'gpt', baseUrl: 'http://127.0.0.1:1/v1' },
    });
    expect(r.get('d').maxConcurrency).toBe(VLLM_DEFAULT_MAX_NUM_SEQS);
    expect(r.get('s').maxConcurrency).toBe(128);
    expect(r.get('o').maxConcurrency).toBe(8);
    expect(r.get('other').maxConcurrency).toBe(4);
  });

  it('gpus: no GPU twice, and a tensor-parallel size that matches them', () => {
    const issues = (o: unknown) => {
      const r = vllmOptionsSchema.safeParse(o);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    expect(issues({ gpus: [0, 1] })).toEqual([]);
    expect(issues({ gpus: [0, 0] })).toEqual(['gpus: lists a GPU twice']);
    expect(issues({ gpus: [0, 1], tensorParallelSize: 4 })).toEqual([
      'tensorParallelSize: 4 differs from the 2 GPU(s) in gpus: vLLM shards the model over exactly the GPUs it sees',
    ]);
    expect(issues({ gpus: [] })[0]).toMatch(/^gpus: /);
  });
});

// A base given as a Hugging Face directory (a local entry whose modelPath is one) is checked by the trainer
// before anything starts: one it cannot load is refused naming the path, and one llama.cpp would have to serve
// (no vllm entry lists it) is refused saying so. The real CLI, against the test stack; no workflow starts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';

useStack({ setup: async ({ db }) => insertFixtureMethods(db, 'fixture-hf-base', [ADD], 'train') });

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-hf-base-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A directory with what check_hf_dir reads (the weights are hashed, not loaded), minus `drop`. */
function hfDir(name: string, drop: string[] = []): string {
  const d = path.join(root, name);
  fs.mkdirSync(d);
  const files: Record<string, string> = {
    'config.json': JSON.stringify({ model_type: 'llama', architectures: ['LlamaForCausalLM'], hidden_size: 16, num_attention_heads: 2 }),
    'model.safetensors': 'weights',
    'tokenizer.json': '{}',
  };
  for (const [f, text] of Object.entries(files)) if (!drop.includes(f)) fs.writeFileSync(path.join(d, f), text);
  return d;
}

function modelsFile(entries: Record<string, string>): string {
  const f = path.join(root, `models-${Object.keys(entries).join('-').replace(/\W/g, '_')}.json`);
  const models = Object.fromEntries(
    Object.entries(entries).map(([name, dir]) => [name, { provider: 'local', model: name.slice(6), modelPath: dir, port: 18999 }]),
  );
  fs.writeFileSync(f, JSON.stringify({ models }));
  return f;
}

const grpo = (base: string) => ['grpo', 'train', '--base', base, '--dataset', 'fixture-hf-base', '--judge-model', 'mock-oracle', '--critic', 'mock-oracle'];

describe('a Hugging Face directory as the base', () => {
  it('without a tokenizer, or of an architecture transformers does not load, is refused before any run, naming the path', async () => {
    const noTok = hfDir('no-tokenizer', ['tokenizer.json']);
    const r = await runCli(grpo('local/hf-notok'), { PAU_MODELS_FILE: modelsFile({ 'local/hf-notok': noTok }) });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`--base local/hf-notok: base model ${fs.realpathSync(noTok)} has no tokenizer`);
    expect(r.stdout).not.toMatch(/workflow:/);

    const odd = hfDir('odd-arch');
    fs.writeFileSync(path.join(odd, 'config.json'), JSON.stringify({ model_type: 'no-such-arch' }));
    const a = await runCli(grpo('local/hf-odd'), { PAU_MODELS_FILE: modelsFile({ 'local/hf-odd': odd }) });
    expect(a.code, a.stdout + a.stderr).toBe(2);
    expect(a.stderr).toMatch(/architecture 'no-such-arch' .* is not one transformers loads as a causal language model/);
    expect(a.stdout).not.toMatch(/workflow:/);
  }, 180_000);

  it('that the trainer can load but nothing can serve is refused: llama.cpp reads GGUF files, vLLM must serve it', async () => {
    const ok = hfDir('loadable');
    const r = await runCli(grpo('local/hf-ok'), { PAU_MODELS_FILE: modelsFile({ 'local/hf-ok': ok }) });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--base local\/hf-ok: .*loadable is a Hugging Face directory, which llama\.cpp cannot serve/);
    expect(r.stderr).toContain('vllm.loraBases lists local/hf-ok');
    expect(r.stdout).not.toMatch(/workflow:/);
  }, 180_000);
});

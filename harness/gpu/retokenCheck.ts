// `npx tsx harness/gpu/retokenCheck.ts [N_SIGNATURES] [SEEDS]`: does the text the GRPO trainer trains on
// re-tokenise to the tokens llama.cpp sampled? Starts SmolLM2-135M's llama.cpp server on a free port in a
// private state dir, samples the policy's first turn (the agent's text-protocol prompts, temperature 1, 48
// tokens, distinct seeds) through llama.cpp's /completion with return_tokens, then has the trainer's own
// tokenizer and ChatEncoder (trainer/pau_trainer/retokenise_check.py) compare: the completion tokenised alone,
// and the assistant span of the whole conversation as the update tokenises it. Prints the shares.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-retoken-'));
process.env.PAU_STATE_DIR = dir;
const SIGNATURES = [
  'def add(a, b)',
  'def safe_div(a, b)',
  'def reverse_words(s: str) -> str',
  'def is_prime(n: int) -> bool',
  'def flatten(xs: list) -> list',
  'def count_vowels(text)',
  'def clamp(x, lo, hi)',
  'def dedupe(items, key=None)',
];
const nSig = Number(process.argv[2] ?? SIGNATURES.length);
const seeds = Number(process.argv[3] ?? 4);

async function main(): Promise<void> {
  const { models } = await import('../../config/models');
  const { freePort } = await import('../../platform/process/processes');
  const { ensureLocalServer, stopLocalServer, planFor } = await import('../../platform/models/local/server');
  const { readOrCreateSecret } = await import('../../config/secrets');
  const { interactiveSystemPrompt, interactiveUserPrompt } = await import('../../domain/episode/prompts');
  const { ensureTrainerPython, TRAINER_DIR } = await import('../../activities/training/trainerProcess');
  const spec = { ...models().get('local/smollm2-135m'), port: await freePort() };
  const plan = planFor(spec);
  const base = (await ensureLocalServer(spec, { log: (m) => console.log(m) })).replace(/\/v1$/, '');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${readOrCreateSecret('model-server-key')}` };
  const post = async (p: string, body: unknown) => {
    const r = await fetch(`${base}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${p}: HTTP ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, unknown>;
  };
  const file = path.join(dir, 'samples.jsonl');
  const out = fs.createWriteStream(file);
  try {
    let n = 0;
    for (const sig of SIGNATURES.slice(0, nSig)) {
      const messages = [
        { role: 'system', content: interactiveSystemPrompt({ maxCalls: 2, maxTurns: 3, maxIdleTurns: 3 }, 'text') },
        { role: 'user', content: interactiveUserPrompt(sig) },
      ];
      const { prompt } = (await post('/apply-template', { messages })) as { prompt: string };
      for (let seed = 0; seed < seeds; seed++) {
        const r = await post('/completion', { prompt, n_predict: 48, temperature: 1, seed, return_tokens: true, cache_prompt: true });
        const tokens = r.tokens as number[] | undefined;
        if (!Array.isArray(tokens)) throw new Error(`/completion returned no tokens (keys: ${Object.keys(r).join(', ')})`);
        out.write(`${JSON.stringify({ messages, text: r.content, tokens })}\n`);
        process.stdout.write(`\rsampled ${++n}/${nSig * seeds}`);
      }
    }
    out.end();
    console.log('');
    const py = await ensureTrainerPython();
    const res = execFileSync(py, ['-m', 'pau_trainer.retokenise_check', file, plan.modelPath], { cwd: TRAINER_DIR, encoding: 'utf8' });
    const r = JSON.parse(res.trim().split('\n').pop()!) as { samples: number; plain_exact: number; trained_exact: number; mismatches: unknown[] };
    const pct = (k: number) => `${k}/${r.samples} (${((100 * k) / r.samples).toFixed(0)} %)`;
    console.log(`completion re-tokenises alone to the sampled ids:            ${pct(r.plain_exact)}`);
    console.log(`trainer's assistant span (whole conversation) = sampled ids: ${pct(r.trained_exact)}`);
    for (const m of r.mismatches) console.log(`  mismatch: ${JSON.stringify(m)}`);
  } finally {
    await stopLocalServer(plan.slug);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);

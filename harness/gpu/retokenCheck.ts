// `npx tsx harness/gpu/retokenCheck.ts [N_SIGNATURES] [SEEDS] [MODEL]`: does the text the GRPO trainer trains
// on re-tokenise to the tokens llama.cpp sampled, and how far apart are the sampler's and the trainer's
// log-probs of those tokens? Starts MODEL's llama.cpp server (default local/smollm2-135m) on a free port in a
// private state dir, samples the policy's first turn (the agent's text-protocol prompts, temperature 1, 48
// tokens, distinct seeds: as GRPO rollouts are sampled) through llama.cpp's /completion with return_tokens and
// each sampled token's log-prob (n_probs), then has the trainer's own tokenizer, ChatEncoder and model
// (trainer/pau_trainer/retokenise_check.py --logprobs) compare: the completion tokenised alone, the assistant
// span of the whole conversation as the update tokenises it, and on the exact ones the per-token log-prob gap.
// Prints the shares and the gap.
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
const modelName = process.argv[4] ?? 'local/smollm2-135m';
const TEMPERATURE = 1;

/** The sampled token's log-prob from llama.cpp's completion_probabilities (newer servers: logprob; older: prob). */
function sampledLogprobs(r: Record<string, unknown>): number[] | undefined {
  const probs = r.completion_probabilities;
  if (!Array.isArray(probs)) return undefined;
  const out: number[] = [];
  for (const p of probs as Record<string, unknown>[]) {
    if (typeof p.logprob === 'number') out.push(p.logprob);
    else if (typeof p.prob === 'number') out.push(Math.log(p.prob));
    else return undefined;
  }
  return out;
}

async function main(): Promise<void> {
  const { models } = await import('../../config/models');
  const { freePort } = await import('../../platform/process/processes');
  const { ensureLocalServer, stopLocalServer, planFor } = await import('../../platform/models/local/server');
  const { readOrCreateSecret } = await import('../../config/secrets');
  const { interactiveSystemPrompt, interactiveUserPrompt } = await import('../../domain/episode/prompts');
  const { ensureTrainerPython, TRAINER_DIR } = await import('../../activities/training/trainerProcess');
  const spec = { ...models().get(modelName), port: await freePort() };
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
        // n_probs: the sampled token's log-prob under the distribution before sampling, which at temperature 1
        // with no truncation sampler (top_k 0, top_p 1, min_p 0: ROLLOUT_SAMPLING) is the one sampled from.
        const r = await post('/completion', {
          prompt,
          n_predict: 48,
          temperature: TEMPERATURE,
          top_k: 0,
          top_p: 1,
          min_p: 0,
          seed,
          return_tokens: true,
          cache_prompt: true,
          n_probs: 1,
        });
        const tokens = r.tokens as number[] | undefined;
        if (!Array.isArray(tokens)) throw new Error(`/completion returned no tokens (keys: ${Object.keys(r).join(', ')})`);
        const logprobs = sampledLogprobs(r);
        if (!logprobs) throw new Error(`/completion returned no per-token log-probs (keys: ${Object.keys(r).join(', ')})`);
        out.write(`${JSON.stringify({ messages, text: r.content, tokens, logprobs, temperature: TEMPERATURE })}\n`);
        process.stdout.write(`\rsampled ${++n}/${nSig * seeds}`);
      }
    }
    out.end();
    console.log('');
    const py = await ensureTrainerPython();
    const res = execFileSync(py, ['-m', 'pau_trainer.retokenise_check', file, plan.modelPath, '--logprobs'], { cwd: TRAINER_DIR, encoding: 'utf8' });
    const r = JSON.parse(res.trim().split('\n').pop()!) as {
      samples: number;
      plain_exact: number;
      trained_exact: number;
      mismatches: unknown[];
      logprob_gap?: { tokens: number; mean_abs?: number; p95_abs?: number; max_abs?: number; mean_is_weight?: number; 'share_outside_clip_0.2'?: number };
    };
    const pct = (k: number) => `${k}/${r.samples} (${((100 * k) / r.samples).toFixed(0)} %)`;
    console.log(`completion re-tokenises alone to the sampled ids:            ${pct(r.plain_exact)}`);
    console.log(`trainer's assistant span (whole conversation) = sampled ids: ${pct(r.trained_exact)}`);
    for (const m of r.mismatches) console.log(`  mismatch: ${JSON.stringify(m)}`);
    const g = r.logprob_gap;
    if (g && g.tokens > 0)
      console.log(
        `sampler vs trainer log-prob of the sampled tokens (${modelName}, T ${TEMPERATURE}, ${g.tokens} tokens of the exact samples): mean |Δ| ${g.mean_abs?.toFixed(4)} nats, p95 ${g.p95_abs?.toFixed(4)}, max ${g.max_abs?.toFixed(4)}; importance weight exp(Δ) mean ${g.mean_is_weight?.toFixed(4)}, outside [0.8, 1.2] ${(100 * (g['share_outside_clip_0.2'] ?? 0)).toFixed(1)} %`,
      );
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

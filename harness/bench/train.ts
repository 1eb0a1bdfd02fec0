// npm run bench:train [-- --steps N --models smollm2-135m,qwen2.5-coder-0.5b --threads T --long-tokens N]
// Training and checkpoint-serving speed on this machine, through the real trainer process (the same path
// runTrainerJob takes): SFT seconds per step and tokens/s, GRPO update tokens/s, and serving latency of a
// trained checkpoint in llama.cpp (base GGUF + the converted LoRA GGUF) against the base alone and against
// transformers+peft; then the GRPO update over a rollout of --long-tokens tokens with gradient checkpointing on
// (the trainer's default) and off: the process's peak RSS and s/step, side by side. Models come from the models
// directory (stand-in installer until `pau models install`). Prints progress while it runs and two tables at the
// end; results also go to reports/bench-train.json.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { ensureTrainerPython, runTrainerProcess, TRAINER_DIR } from '../../activities/training/trainerProcess';
import type { ProgressEvent, TrainerCommand, TrainerEvent } from '../../domain/training/trainerProtocol';
import { GRPO_LORA } from '../../domain/training/grpo';
import { memoryRollouts, memoryUpdateSpec } from '../gpu/memoryStep';

interface Args {
  steps: number;
  models: string[];
  threads: number;
  /** Tokens of the rollout the checkpointing comparison trains. */
  longTokens: number;
}

/** A positive integer flag, or exit 2 naming it. */
function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  const v = Number(raw ?? fallback);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`bench:train: --${name} must be a positive integer, got ${raw}`);
    process.exit(2);
  }
  return v;
}

function parseArgs(argv: string[]): Args {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    steps: positiveInt('steps', get('steps'), 4),
    models: (get('models') ?? 'smollm2-135m,qwen2.5-coder-0.5b').split(',').filter(Boolean),
    threads: positiveInt('threads', get('threads') ?? process.env.PAU_TRAINER_THREADS, 1),
    longTokens: positiveInt('long-tokens', get('long-tokens'), 2048),
  };
}

const started = Date.now();
const log = (msg: string) => console.log(`[${Math.round((Date.now() - started) / 1000)}s] ${msg}`);

/** A PAU-like episode: system prompt, task, three probing calls with results, a description (~250 tokens). */
function episode(i: number) {
  const calls = [`${i}, 2`, `${-i}, 0`, `'${'ab'.repeat((i % 3) + 1)}', 3`];
  const messages: object[] = [
    {
      role: 'system',
      content:
        'You are probing a black-box Python method. Call call_method with arguments you choose, read what it returns or raises, and when you are confident submit a precise description of its behaviour.',
    },
    { role: 'user', content: `Method: f(a, b). Find out what f does. Example ${i}.` },
  ];
  calls.forEach((args, k) => {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'call_method', arguments: JSON.stringify({ arguments: args }) } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${k}`, content: k === 2 ? 'TypeError: can only concatenate str (not "int") to str' : String(i * (k + 2)) });
  });
  messages.push({
    role: 'assistant',
    content: `f(a, b) multiplies a by b and raises TypeError for strings combined with integers; for a=${i}, b=2 it returns ${i * 2}.`,
  });
  return messages;
}

function modelPath(py: string, short: string): string {
  return execFileSync(py, [path.join(TRAINER_DIR, 'tests', 'standin_models.py'), short], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
}

async function timedJob(command: TrainerCommand, spec: object, dir: string, label: string, threads: number) {
  const file = path.join(dir, `${command}.json`);
  fs.writeFileSync(file, JSON.stringify(spec));
  const t0 = Date.now();
  const progress: ProgressEvent[] = [];
  let longestTokens: number | undefined;
  const r = await runTrainerProcess(command, file, {
    env: { PAU_TRAINER_THREADS: String(threads) },
    onEvent: (e: TrainerEvent) => {
      if (e.type === 'start' && typeof e.longest_tokens === 'number') longestTokens = e.longest_tokens;
      if (e.type === 'progress') {
        progress.push(e);
        const eta = progress.length > 0 ? ((e.total - e.step) * (e.elapsed_s / e.step)).toFixed(0) : '?';
        log(`${label}: step ${e.step}/${e.total} loss ${e.loss?.toFixed(3)} ${e.tokens_per_s} tok/s (ETA ${eta}s)`);
      } else if (e.type === 'info') log(`${label}: ${e.message}`);
    },
  });
  if (r.exitCode !== 0) throw new Error(`${label} failed (${r.exitCode ?? r.signal}): ${r.stderrTail.slice(-1500)}`);
  const done = r.events.find((e) => e.type === 'done');
  // step 1 includes one-time warm-up (allocations); report the steady steps
  const steady = progress.length > 1 ? progress.slice(1) : progress;
  const stepS = steady.map((p) => Number(p.step_s));
  const tokens = steady.map((p) => Number(p.tokens));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return {
    wallS: (Date.now() - t0) / 1000,
    sPerStep: sum(stepS) / stepS.length,
    tokensPerS: sum(tokens) / sum(stepS),
    tokensPerStep: sum(tokens) / tokens.length,
    // the process's peak resident set over the whole job (loading, the reference pass, the steps)
    peakRssBytes: Math.max(0, ...progress.map((p) => p.peak_rss_bytes ?? 0)),
    longestTokens,
    done,
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  log(
    `bench:train: models ${args.models.join(', ')}, ${args.steps} steps each, ${args.threads} torch thread(s), ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const py = await ensureTrainerPython((l) => log(l));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-bench-train-'));
  const data = path.join(dir, 'sft.jsonl');
  fs.writeFileSync(data, Array.from({ length: 8 }, (_, i) => JSON.stringify({ messages: episode(i + 1) })).join('\n') + '\n');
  const rollouts = path.join(dir, 'rollouts.jsonl');
  fs.writeFileSync(
    rollouts,
    Array.from({ length: 4 }, (_, i) =>
      JSON.stringify({ id: `r${i}`, group: `m${i % 2}`, messages: episode(i + 1), rewards: { outcome: i, steps: [1, 0, i % 2, null] } }),
    ).join('\n') + '\n',
  );
  const long = path.join(dir, 'long.jsonl');
  fs.writeFileSync(long, memoryRollouts(args.longTokens));
  const rows: Record<string, unknown>[] = [];
  const checkpointing: Record<string, unknown>[] = [];
  try {
    for (const short of args.models) {
      log(`${short}: locating the base model`);
      const model = modelPath(py, short);
      const lora = { rank: 8, alpha: 16, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] };
      const sft = await timedJob(
        'sft',
        {
          base_model: model,
          data,
          output_dir: path.join(dir, `${short}-sft`),
          lr: 2e-4,
          max_length: 512,
          max_steps: args.steps,
          save_every: 1000,
          seed: 1,
          lora,
        },
        dir,
        `${short} sft`,
        args.threads,
      );
      // The GRPO update with the attention-only adapter it had before and with its default (every linear
      // layer, GRPO_LORA), side by side in one run: the cost of the MLP's LoRA
      const grpoWith = (name: string, l: object) =>
        timedJob(
          'grpo-update',
          {
            base_model: model,
            rollouts,
            output_dir: path.join(dir, `${short}-grpo-${name}`),
            max_length: 512,
            mini_batch_size: 1,
            max_steps: args.steps,
            save_every: 1000,
            seed: 1,
            advantage: { mode: 'mix' },
            lora: l,
          },
          dir,
          `${short} grpo (${name})`,
          args.threads,
        );
      const grpoAttn = await grpoWith('attention', lora);
      const grpo = await grpoWith('all linear', GRPO_LORA);
      log(`${short}: exporting the SFT adapter to GGUF and timing serving`);
      const ckpt = sft.done?.type === 'done' ? sft.done.checkpoint : '';
      const gguf = path.join(dir, `${short}-lora.gguf`);
      const exp = await timedJob('export-gguf-lora', { adapter_dir: ckpt, base_model: model, output: gguf }, dir, `${short} export`, args.threads);
      const cfg = path.join(dir, `${short}-serve.json`);
      const requests = [
        { messages: episode(9).slice(0, 2), max_tokens: 32 },
        { messages: [{ role: 'user', content: 'Write a Python function that reverses a string.' }], max_tokens: 32 },
      ];
      fs.writeFileSync(cfg, JSON.stringify({ base_model: model, adapter_dir: ckpt, lora_gguf: gguf, requests, threads: args.threads }));
      const served = spawnSync(py, ['-m', 'pau_trainer.serving_check', cfg], {
        cwd: TRAINER_DIR,
        encoding: 'utf8',
        env: { ...process.env, HF_HUB_OFFLINE: '1' },
        maxBuffer: 64 * 1024 * 1024,
      });
      if (served.status !== 0) throw new Error(`serving check failed (${served.status}): ${served.stderr.slice(-2000)}`);
      const serve = JSON.parse(served.stdout.trim().split('\n').pop()!) as {
        load_llama_lora_s: number;
        load_llama_base_s: number;
        rows: {
          latency_llama_lora_s: number;
          latency_llama_base_s: number;
          latency_hf_peft_s: number;
          tokens_llama_lora: number;
          tokens_llama_base: number;
          tokens_hf_peft: number;
          diff_llama_lora_vs_hf_peft: number;
          diff_llama_base_vs_hf_peft: number;
        }[];
      };
      const per = (k: 'latency_llama_lora_s' | 'latency_llama_base_s' | 'latency_hf_peft_s', n: 'tokens_llama_lora' | 'tokens_llama_base' | 'tokens_hf_peft') =>
        serve.rows.reduce((a, r) => a + r[k], 0) /
        Math.max(
          1,
          serve.rows.reduce((a, r) => a + r[n], 0),
        );
      rows.push({
        model: short,
        'sft s/step': sft.sPerStep.toFixed(2),
        'sft tok/s': sft.tokensPerS.toFixed(0),
        'sft tok/step': sft.tokensPerStep.toFixed(0),
        'grpo s/step (attention)': grpoAttn.sPerStep.toFixed(2),
        'grpo s/step (all linear)': grpo.sPerStep.toFixed(2),
        'all linear / attention': (grpo.sPerStep / grpoAttn.sPerStep).toFixed(2),
        'grpo tok/s': grpo.tokensPerS.toFixed(0),
        'export s': exp.wallS.toFixed(1),
        'llama+lora ms/tok': (1000 * per('latency_llama_lora_s', 'tokens_llama_lora')).toFixed(0),
        'llama base ms/tok': (1000 * per('latency_llama_base_s', 'tokens_llama_base')).toFixed(0),
        'hf+peft ms/tok': (1000 * per('latency_hf_peft_s', 'tokens_hf_peft')).toFixed(0),
        '|dlogp| lora vs peft': (serve.rows.reduce((a, r) => a + r.diff_llama_lora_vs_hf_peft, 0) / serve.rows.length).toFixed(3),
        '|dlogp| base vs peft': (serve.rows.reduce((a, r) => a + r.diff_llama_base_vs_hf_peft, 0) / serve.rows.length).toFixed(3),
      });
      // The same update over a long rollout with gradient checkpointing on and off: memory against time
      const longWith = (on: boolean) =>
        timedJob(
          'grpo-update',
          memoryUpdateSpec({
            base: model,
            rollouts: long,
            outputDir: path.join(dir, `${short}-grpo-long-${on ? 'ckpt' : 'full'}`),
            device: 'cpu',
            tokens: args.longTokens,
            gradientCheckpointing: on,
            steps: args.steps,
          }),
          dir,
          `${short} grpo ${args.longTokens} tokens (checkpointing ${on ? 'on' : 'off'})`,
          args.threads,
        );
      const on = await longWith(true);
      const off = await longWith(false);
      checkpointing.push({
        model: short,
        tokens: on.longestTokens ?? args.longTokens,
        'peak RSS GiB (on)': (on.peakRssBytes / 2 ** 30).toFixed(2),
        'peak RSS GiB (off)': (off.peakRssBytes / 2 ** 30).toFixed(2),
        'RSS on / off': (on.peakRssBytes / off.peakRssBytes).toFixed(2),
        's/step (on)': on.sPerStep.toFixed(2),
        's/step (off)': off.sPerStep.toFixed(2),
        's/step on / off': (on.sPerStep / off.sPerStep).toFixed(2),
      });
      log(`${short}: done`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log('\nbench:train (CPU, steady steps after the first; latency = generation wall time per generated token)');
  console.table(rows);
  console.log(
    `\nGRPO update over a ${args.longTokens}-token rollout, gradient checkpointing on (the default) and off (CPU, fp32; peak RSS of the trainer process, loading included; s/step of the steady steps)`,
  );
  console.table(checkpointing);
  fs.mkdirSync(path.join(PROJECT_ROOT, 'reports'), { recursive: true });
  fs.writeFileSync(
    path.join(PROJECT_ROOT, 'reports', 'bench-train.json'),
    JSON.stringify({ at: new Date().toISOString(), args, load1: os.loadavg()[0], rows, checkpointing }, null, 2),
  );
  log(`summary: ${rows.length} model(s) measured; reports/bench-train.json`);
}

await main();

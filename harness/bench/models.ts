// `npm run bench:models`: speed of the local models on this machine, one server at a time (the others
// are stopped first). Per model: prompt and generation tokens per second (llama.cpp's own timings), then a
// scripted agent episode of T turns on the project's real interactive prompt, once with prompt caching
// and once without: time per agent turn and episodes per minute (one conversation at a time).
//   npm run bench:models [-- --models local/qwen2.5-coder-0.5b,... --turns 4 --max-tokens 64]
import type { ChatMessage } from '../../domain/llm/chatMessage';
import { z } from 'zod';
import { interactiveSystemPrompt, interactiveUserPrompt, TEXT_RESULTS_HEADING, TOOLS } from '../../domain/episode/prompts';
import { installModel } from '../../platform/models/local/install';
import { baseUrlOf, planFor, startLocalServer, stopAllLocalServers } from '../../platform/models/local/server';
import { LOCAL_MODELS, LOCAL_PREFIX } from '../../domain/llm/localModels';
import { models } from '../../config/models';
import { readOrCreateSecret } from '../../config/secrets';
import { commaList } from '../../scripts/options/runSelection';
import { defineOptions, parseCommandArgs } from '../../scripts/lib/args';
import { printTable } from '../../domain/report/table';

interface Timings {
  prompt_n: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_per_second: number;
  cache_n?: number;
}
interface Reply {
  content: string;
  timings: Timings;
  ms: number;
}

async function complete(port: number, key: string, messages: ChatMessage[], maxTokens: number, cachePrompt: boolean): Promise<Reply> {
  const started = Date.now();
  const r = await fetch(`${baseUrlOf(port)}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ messages, tools: TOOLS, temperature: 0, max_tokens: maxTokens, cache_prompt: cachePrompt }),
  });
  if (!r.ok) throw new Error(`HTTP ${r.status}: ${await r.text()}`);
  const j = (await r.json()) as { choices: { message: { content: string | null; tool_calls?: unknown[] } }[]; timings: Timings };
  const m = j.choices[0]!.message;
  return { content: m.content ?? JSON.stringify(m.tool_calls ?? []), timings: j.timings, ms: Date.now() - started };
}

const SIGNATURE = 'def sort_numbers(numbers: str) -> str:';
const BUDGETS = { maxCalls: 8, maxTurns: 8, maxIdleTurns: 3 };

const options = defineOptions({
  models: commaList.optional(),
  turns: z.coerce.number().int().min(1).max(20).default(4),
  'max-tokens': z.coerce.number().int().min(8).max(1024).default(64),
});

async function main(): Promise<void> {
  const { values } = parseCommandArgs(process.argv.slice(2), options);
  const names = values.models ?? LOCAL_MODELS.map((m) => `${LOCAL_PREFIX}${m.short}`);
  const key = readOrCreateSecret('model-server-key');
  const steps = names.length * (1 + 2 * values.turns);
  let done = 0;
  const t0 = Date.now();
  const tick = (what: string) => {
    done++;
    const elapsed = (Date.now() - t0) / 1000;
    const eta = (elapsed / done) * (steps - done);
    console.log(`[${done}/${steps}] ${what}  (elapsed ${elapsed.toFixed(0)} s, ETA ${eta.toFixed(0)} s)`);
  };
  const rows: string[][] = [];
  for (const name of names) {
    const spec = models().get(name);
    if (!spec.modelPath) await installModel(spec.model, { log: console.log });
    await stopAllLocalServers(); // one busy server at a time
    await startLocalServer(spec, { log: console.log });
    const port = planFor(spec).port;
    const opening: ChatMessage[] = [
      { role: 'system', content: interactiveSystemPrompt(BUDGETS) },
      { role: 'user', content: interactiveUserPrompt(SIGNATURE) },
    ];
    // Cold: nothing cached (prompt processing speed) and a generation run (generation speed).
    const cold = await complete(port, key, opening, values['max-tokens'], false);
    tick(`${name}: cold prompt ${cold.timings.prompt_n} tokens`);
    const episode = async (cachePrompt: boolean) => {
      const messages = [...opening];
      const turnMs: number[] = [];
      let promptTokens = 0;
      let cachedTokens = 0;
      for (let t = 0; t < values.turns; t++) {
        const r = await complete(port, key, messages, values['max-tokens'], cachePrompt);
        turnMs.push(r.ms);
        promptTokens += r.timings.prompt_n;
        cachedTokens += r.timings.cache_n ?? 0;
        messages.push(
          { role: 'assistant', content: r.content },
          { role: 'user', content: `${TEXT_RESULTS_HEADING}\nsort_numbers('three one five') -> 'one three five'\nsort_numbers('') -> ''` },
        );
        tick(`${name}: turn ${t + 1}/${values.turns} ${cachePrompt ? 'with' : 'without'} prompt caching, ${(r.ms / 1000).toFixed(1)} s`);
      }
      const total = turnMs.reduce((a, b) => a + b, 0);
      return { perTurnS: total / 1000 / values.turns, perMin: 60_000 / total, promptTokens, cachedTokens };
    };
    const withCache = await episode(true);
    const without = await episode(false);
    rows.push([
      name,
      `${spec.threads ?? 1}`,
      cold.timings.prompt_per_second.toFixed(1),
      cold.timings.predicted_per_second.toFixed(1),
      withCache.perTurnS.toFixed(1),
      without.perTurnS.toFixed(1),
      withCache.perMin.toFixed(2),
      without.perMin.toFixed(2),
      `${withCache.cachedTokens}/${withCache.promptTokens + withCache.cachedTokens}`,
    ]);
  }
  await stopAllLocalServers();
  console.log(`\nlocal models, ${values.turns}-turn scripted episode (max ${values['max-tokens']} tokens per reply), one conversation at a time:`);
  printTable(
    [
      'model',
      'threads',
      'prompt tok/s',
      'gen tok/s',
      's/turn cached',
      's/turn uncached',
      'episodes/min cached',
      'episodes/min uncached',
      'prompt tokens from cache',
    ],
    rows,
  );
  console.log(`(figures depend on the machine's load; total ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

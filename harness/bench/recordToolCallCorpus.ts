// Records what real local models answer to the project's real agent prompts, as the corpus the text
// tool-call parser is tested on (test/fixtures/toolCallCorpus/<model>.json). For each model (one server
// at a time: the others are stopped first) and each signature: the first interactive turn with the
// native tools, the same with the plain-text protocol (each at temperature 0 and at 0.8 with a seed),
// and the final ask after one executed call. Usage:
//   npx tsx harness/bench/recordToolCallCorpus.ts [--greedy-only] [local/qwen2.5-coder-0.5b ...]
// (--greedy-only: temperature 0 only, for the slower models.)
import fs from 'node:fs';
import path from 'node:path';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { finalPrompt, interactiveSystemPrompt, interactiveUserPrompt, SUBMIT_ONLY, TOOLS, type ToolProtocol } from '../../domain/episode/prompts';
import { baseUrlOf, planFor, startLocalServer, stopAllLocalServers } from '../../platform/models/local/server';
import { PROJECT_ROOT } from '../../config/env';
import { models } from '../../config/models';
import { readOrCreateSecret } from '../../config/secrets';

const SIGNATURES = [
  { signature: 'def sort_numbers(numbers: str) -> str:', call: "'three one five'", result: "'one three five'" },
  { signature: 'def add(a, b):', call: '1, 2', result: '3' },
  { signature: 'def max_element(l: list):', call: '[1, 2, 3]', result: '3' },
  { signature: 'def remove_vowels(text):', call: "'hello'", result: "'hll'" },
];
const BUDGETS = { maxCalls: 8, maxTurns: 8, maxIdleTurns: 3 };

interface Case {
  id: string;
  protocol: ToolProtocol;
  turn: 'first' | 'final';
  temperature: number;
  seed?: number;
  signature: string;
  messages: ChatCompletionMessageParam[];
  tools?: typeof TOOLS;
}

function cases(): Case[] {
  const out: Case[] = [];
  SIGNATURES.forEach((s, i) => {
    for (const protocol of ['native', 'text'] as const) {
      for (const [temperature, seed] of [
        [0, undefined],
        [0.8, 1],
      ] as const) {
        out.push({
          id: `${i}-${protocol}-first-t${temperature}`,
          protocol,
          turn: 'first',
          temperature,
          ...(seed !== undefined ? { seed } : {}),
          signature: s.signature,
          messages: [
            { role: 'system', content: interactiveSystemPrompt(BUDGETS, protocol) },
            { role: 'user', content: interactiveUserPrompt(s.signature) },
          ],
          ...(protocol === 'native' ? { tools: TOOLS } : {}),
        });
      }
    }
    out.push({
      id: `${i}-native-final-t0`,
      protocol: 'native',
      turn: 'final',
      temperature: 0,
      signature: s.signature,
      messages: [
        { role: 'system', content: interactiveSystemPrompt(BUDGETS) },
        { role: 'user', content: interactiveUserPrompt(s.signature) },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'call_method', arguments: JSON.stringify({ arguments: s.call }) } }],
        },
        { role: 'tool', tool_call_id: 'call_0', content: s.result },
        { role: 'user', content: finalPrompt(`You have used all ${BUDGETS.maxTurns} turns.`) },
      ],
      tools: SUBMIT_ONLY,
    });
  });
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const greedyOnly = args.includes('--greedy-only');
  const named = args.filter((a) => !a.startsWith('--'));
  const names = named.length > 0 ? named : ['local/smollm2-135m', 'local/qwen2.5-coder-0.5b', 'local/qwen2.5-coder-1.5b'];
  const key = readOrCreateSecret('model-server-key');
  const dir = path.join(PROJECT_ROOT, 'test', 'fixtures', 'toolCallCorpus');
  fs.mkdirSync(dir, { recursive: true });
  for (const name of names) {
    await stopAllLocalServers(); // one busy server at a time on a small machine
    const spec = models().get(name);
    await startLocalServer(spec, { log: console.log });
    const url = `${baseUrlOf(planFor(spec).port)}/chat/completions`;
    const records: unknown[] = [];
    const all = cases().filter((c) => !greedyOnly || c.temperature === 0);
    for (const [n, c] of all.entries()) {
      const started = Date.now();
      const body = {
        model: name,
        messages: c.messages,
        ...(c.tools ? { tools: c.tools } : {}),
        temperature: c.temperature,
        ...(c.seed !== undefined ? { seed: c.seed } : {}),
        max_tokens: 256,
      };
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      const j = (await r.json()) as {
        choices: { message: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string }[];
      };
      const m = j.choices[0]!.message;
      records.push({
        id: `${name}/${c.id}`,
        model: name,
        protocol: c.protocol,
        turn: c.turn,
        temperature: c.temperature,
        ...(c.seed !== undefined ? { seed: c.seed } : {}),
        signature: c.signature,
        content: m.content,
        toolCalls: (m.tool_calls ?? []).map((t) => ({ name: t.function.name, arguments: t.function.arguments })),
        finishReason: j.choices[0]!.finish_reason,
      });
      console.log(`${name} ${n + 1}/${all.length} ${c.id}: ${((Date.now() - started) / 1000).toFixed(1)} s, ${m.tool_calls?.length ?? 0} native call(s)`);
    }
    const file = path.join(dir, `${name.replace(/^local\//, '')}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          recordedAt: new Date().toISOString(),
          model: name,
          how: 'harness/bench/recordToolCallCorpus.ts: llama.cpp server (xllamacpp), registry threads (1 on 2 cores), max_tokens 256',
          records,
        },
        null,
        2,
      ) + '\n',
    );
    console.log(`wrote ${file}`);
  }
  await stopAllLocalServers();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

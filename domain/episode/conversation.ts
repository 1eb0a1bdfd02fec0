// The conversation a model is sent, rebuilt from an episode's stored steps: the harness sends it on every
// turn (activities/episode/agentTurn.ts), so the conversation lives in Postgres and never in workflow
// history, and every reader of "what the model saw" (training data, the inspect_ai export) reads this.
// Pure.
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { TEXT_RESULTS_HEADING } from './prompts';
import type { StoredStep } from './stepRecord';

/**
 * The chat messages the model saw, rebuilt from the steps (example steps are part of the user prompt).
 * Results of calls the model wrote as text (no native tool call to answer) come back as one user
 * message per turn: `Results:` then `f(args) -> result` lines.
 */
export function messagesFromSteps(rows: readonly StoredStep[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let textResults: string[] = [];
  const flush = () => {
    if (textResults.length > 0) out.push({ role: 'user', content: [TEXT_RESULTS_HEADING, ...textResults].join('\n') });
    textResults = [];
  };
  for (const s of rows) {
    const m = s.agentMessage ?? {};
    const obs = s.observation;
    const call = s.call ?? {};
    if ((s.kind === 'call' || s.kind === 'problem' || s.kind === 'submit') && (call.source === 'text' || call.source === 'unparsable')) {
      const text = obs?.text ?? '(no result)';
      textResults.push(call.label ? `${call.label} -> ${text}` : text);
      continue;
    }
    flush();
    switch (s.kind) {
      case 'system':
        out.push({ role: 'system', content: m.content ?? '' });
        break;
      case 'user':
        out.push({ role: 'user', content: m.content ?? '' });
        break;
      case 'assistant': {
        // reasoningContent (stored by agentTurn) is not sent back: some providers reject it, and training
        // renders each request as sent (domain/training/servedLine.ts)
        const toolCalls = m.toolCalls ?? [];
        out.push({
          role: 'assistant',
          content: m.content ?? null,
          ...(toolCalls.length > 0
            ? { tool_calls: toolCalls.map((t) => ({ id: t.id, type: 'function' as const, function: { name: t.name, arguments: t.arguments } })) }
            : {}),
        });
        break;
      }
      case 'call':
      case 'problem':
      case 'submit':
        if (call.toolCallId) out.push({ role: 'tool', tool_call_id: call.toolCallId, content: obs?.text ?? '(no result)' });
        break;
      default:
        break;
    }
  }
  flush();
  return out;
}

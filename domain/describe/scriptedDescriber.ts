// The scripted mock model as a DESCRIBER (`pau dataset describe` with a mock-* model; not a language model,
// every reply says so). The mock server dispatches here when a request carries the describe system prompt.
//   oracle: a description that quotes the method's code (the scripted coder oracle turns that back into the
//           original code, so the description is kept: the plumbing's positive case);
//   null:   a fixed description that says nothing ("I do not know ..."): code from it does not match, so the
//           description is rejected.
// Real reference descriptions need a real model (docs/datasets.md, "Reference descriptions").
import type { RequestMessage } from '../llm/chatMessage';
import { SCRIPTED_MARK } from '../judge/scriptedJudge';
import { DESCRIBE_SYSTEM } from './describePrompt';

export const NULL_DESCRIPTION = 'I do not know what this function does.';

export function scriptedDescriberReply(
  policy: string,
  messages: readonly RequestMessage[],
  method?: { code?: string | null },
): { kind: 'message'; content: string; toolCalls: [] } | undefined {
  const sys = messages.find((m) => m.role === 'system');
  if (typeof sys?.content !== 'string' || sys.content !== DESCRIBE_SYSTEM) return undefined;
  if (policy === 'oracle' && method?.code) {
    return {
      kind: 'message',
      content: `${SCRIPTED_MARK} It behaves exactly like this Python code:\n\`\`\`python\n${method.code.trim()}\n\`\`\``,
      toolCalls: [],
    };
  }
  if (policy === 'oracle' || policy === 'null') return { kind: 'message', content: `${SCRIPTED_MARK} ${NULL_DESCRIPTION}`, toolCalls: [] };
  return undefined;
}

// What the agent asked for, read defensively: every tool call becomes a valid call, a submission, or a
// named problem that is shown back to the agent and recorded. Nothing here throws on model output.
import { TOOL_CALL_METHOD, TOOL_SUBMIT, unparsableCallPrompt, type ToolProtocol } from './prompts';
import type { TextParse } from './textToolCalls';

export type ParsedToolCall =
  | { kind: 'call'; id: string; arguments: string; raw: string }
  | { kind: 'submit'; id: string; description: string; raw: string }
  | {
      kind: 'problem';
      id: string;
      tool: string;
      problem: 'malformed_json' | 'missing_argument' | 'unknown_tool' | 'unparsable_tool_call' | 'description_with_calls';
      message: string;
      raw: string;
    };

/** Where a turn's tool calls came from: native `tool_calls`, parsed from the text, text that could not be read, or none. */
export type CallSource = 'native' | 'text' | 'unparsable' | 'none';

/**
 * In a text message, calls win over a description written beside them while calls can still run: small
 * models often write `CALL ...` and a guessed `DESCRIPTION:` in one message, and would otherwise never
 * see a result. The description is recorded as a problem and shown back; it counts once submitted alone.
 */
export function callsBeforeDescription(parsed: ParsedToolCall[]): ParsedToolCall[] {
  if (!parsed.some((p) => p.kind === 'call') || !parsed.some((p) => p.kind === 'submit')) return parsed;
  return parsed.map((p) =>
    p.kind === 'submit'
      ? {
          kind: 'problem',
          id: p.id,
          tool: TOOL_SUBMIT,
          problem: 'description_with_calls',
          message:
            'Ignored: a description written in the same message as calls. The calls were run; submit the description on its own once you have seen their results.',
          raw: p.raw,
        }
      : p,
  );
}

/** Calls read from a message's text, in the harness's form (ids `<prefix>_<n>`); an unreadable attempt is one problem. */
export function textToolCallsAsParsed(text: TextParse, idPrefix: string, protocol: ToolProtocol): ParsedToolCall[] {
  if (text.calls.length === 0) {
    return text.unparsable
      ? [{ kind: 'problem', id: `${idPrefix}_0`, tool: '(text)', problem: 'unparsable_tool_call', message: unparsableCallPrompt(protocol), raw: '' }]
      : [];
  }
  return text.calls.map((c, i): ParsedToolCall => {
    const id = `${idPrefix}_${i}`;
    if ('unknown' in c)
      return {
        kind: 'problem',
        id,
        tool: c.name,
        problem: 'unknown_tool',
        message: `Error: there is no tool or function named ${JSON.stringify(c.name)}; call the function by its own name. Nothing was run.`,
        raw: c.raw,
      };
    if (c.name === TOOL_SUBMIT) return { kind: 'submit', id, description: c.description, raw: c.raw };
    return { kind: 'call', id, arguments: c.arguments, raw: c.raw };
  });
}

function singleString(obj: Record<string, unknown>, preferred: string[]): string | undefined {
  for (const k of preferred) {
    const v = obj[k];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(', ');
  }
  const strings = Object.values(obj).filter((v): v is string => typeof v === 'string');
  return strings.length === 1 ? strings[0] : undefined;
}

export function parseToolCall(tc: { id: string; name: string; arguments: string }): ParsedToolCall {
  const raw = tc.arguments ?? '';
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return {
      kind: 'problem',
      id: tc.id,
      tool: tc.name,
      problem: 'malformed_json',
      message: `Error: the tool call's arguments are not valid JSON (${(err as Error).message}). Nothing was run.`,
      raw,
    };
  }
  const obj = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  if (tc.name === TOOL_CALL_METHOD) {
    const args = typeof parsed === 'string' ? parsed : singleString(obj, ['arguments', 'args', 'input', 'inputs']);
    if (args === undefined)
      return {
        kind: 'problem',
        id: tc.id,
        tool: tc.name,
        problem: 'missing_argument',
        message: `Error: ${TOOL_CALL_METHOD} needs {"arguments": "<Python literals>"}. Nothing was run.`,
        raw,
      };
    return { kind: 'call', id: tc.id, arguments: args, raw };
  }
  if (tc.name === TOOL_SUBMIT) {
    const description = typeof parsed === 'string' ? parsed : singleString(obj, ['description', 'answer', 'text']);
    if (description === undefined)
      return { kind: 'problem', id: tc.id, tool: tc.name, problem: 'missing_argument', message: `Error: ${TOOL_SUBMIT} needs {"description": "..."}.`, raw };
    return { kind: 'submit', id: tc.id, description, raw };
  }
  return {
    kind: 'problem',
    id: tc.id,
    tool: tc.name,
    problem: 'unknown_tool',
    message: `Error: there is no tool named ${JSON.stringify(tc.name)}; use ${TOOL_CALL_METHOD} or ${TOOL_SUBMIT}.`,
    raw,
  };
}

const REFUSAL = /\b(I\s*(?:'m| am)\s+(?:sorry|unable|not able)|I\s+(?:can(?:'|no)t|cannot|won'?t|will not)\s+(?:help|assist|do|comply|provide))/i;

/** A plain-text answer: empty, a refusal, or text (a description given without the tool). */
export function classifyText(content: string | null | undefined, refusal?: string | null): 'empty' | 'refusal' | 'text' {
  if (refusal && refusal.trim()) return 'refusal';
  const t = (content ?? '').trim();
  if (!t) return 'empty';
  if (t.length < 400 && REFUSAL.test(t)) return 'refusal';
  return 'text';
}

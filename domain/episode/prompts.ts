// Every text the agent reads: system prompts, the first user message, nudges, the final ask, tool specs.
// One module, so a prompt change is one reviewed edit (and changes the cache key, as it should).
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { EpisodeBudgets } from './types';

export const TOOL_CALL_METHOD = 'call_method';
export const TOOL_SUBMIT = 'submit_description';

export const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_CALL_METHOD,
      description: 'Call the hidden Python function once. Returns the repr of its return value, or "ExceptionType: message" if it raises.',
      parameters: {
        type: 'object',
        properties: {
          arguments: {
            type: 'string',
            description:
              'The call\'s arguments as Python literals, exactly as written between the parentheses of a call, e.g. "[3, 1, 2], reverse=True" or "\'abc\', 2".',
          },
        },
        required: ['arguments'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: TOOL_SUBMIT,
      description: 'Submit your final description of what the function does. Ends the investigation.',
      parameters: {
        type: 'object',
        properties: {
          description: { type: 'string', description: "A precise description of the function's behaviour." },
        },
        required: ['description'],
        additionalProperties: false,
      },
    },
  },
];
export const SUBMIT_ONLY: ChatCompletionTool[] = TOOLS.filter((t) => t.type === 'function' && t.function.name === TOOL_SUBMIT);

const DESCRIPTION_ASK =
  'Describe what the function computes: its inputs, its output, and its behaviour on edge cases and invalid inputs (including the exceptions it raises), precisely enough that someone could reimplement it without seeing the code.';

/** How the agent acts: native tool calls, or the plain-text protocol (`CALL f(...)` / `DESCRIPTION: ...`). */
export type ToolProtocol = 'native' | 'text';
export const TEXT_CALL_PREFIX = 'CALL';
export const TEXT_DESCRIPTION_PREFIX = 'DESCRIPTION:';

export function interactiveSystemPrompt(b: EpisodeBudgets, protocol: ToolProtocol = 'native'): string {
  if (protocol === 'text') return textProtocolSystemPrompt(b);
  return [
    'You are investigating a black-box Python function. You cannot see its code or its documentation: only its name and signature.',
    `Find out what it does by calling it with inputs you choose, using the \`${TOOL_CALL_METHOD}\` tool. Each call runs the function once on fresh state and returns the repr of the result, or "ExceptionType: message" if it raises. You may make several calls in one turn.`,
    `Budget: at most ${b.maxCalls} calls and ${b.maxTurns} turns. Choose informative inputs: typical cases, edge cases, unusual types.`,
    `When you are confident, call \`${TOOL_SUBMIT}\` with your description. ${DESCRIPTION_ASK}`,
  ].join('\n\n');
}

/** The plain-text protocol, for models or endpoints without tool calling. */
export function textProtocolSystemPrompt(b: EpisodeBudgets): string {
  return [
    'You are investigating a black-box Python function. You cannot see its code or its documentation: only its name and signature.',
    `Find out what it does by calling it with inputs you choose. To call it, write a line that starts with ${TEXT_CALL_PREFIX} followed by the call with Python literal arguments, for example:\n${TEXT_CALL_PREFIX} f([3, 1, 2], reverse=True)\n(use the function's real name). Each call runs the function once on fresh state; you will get the repr of the result, or "ExceptionType: message" if it raises. You may write several ${TEXT_CALL_PREFIX} lines in one message.`,
    `Budget: at most ${b.maxCalls} calls and ${b.maxTurns} turns. Choose informative inputs: typical cases, edge cases, unusual types.`,
    `When you are confident, write a line that starts with ${TEXT_DESCRIPTION_PREFIX} followed by your description. ${DESCRIPTION_ASK}`,
  ].join('\n\n');
}

export function interactiveUserPrompt(signature: string): string {
  return `The function:\n\n\`\`\`python\n${signature}\n\`\`\`\n\nStart investigating.`;
}

export const IN_CONTEXT_SYSTEM_PROMPT = [
  'You are given input/output examples of a black-box Python function. You cannot see its code or its documentation: only its name, its signature and the examples.',
  `Work out what it does. ${DESCRIPTION_ASK}`,
  'Answer with the description only.',
].join('\n\n');

export function inContextUserPrompt(signature: string, entryPoint: string, examples: { arguments: string; observation: string; ok: boolean }[]): string {
  const lines = examples.map((e) => `${entryPoint}(${e.arguments}) ${e.ok ? '->' : 'raises'} ${e.observation}`);
  return [
    `The function:\n\n\`\`\`python\n${signature}\n\`\`\``,
    examples.length > 0 ? `Examples:\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`` : 'No examples are available.',
    'What does the function do?',
  ].join('\n\n');
}

export function nudgePrompt(reason: string, protocol: ToolProtocol = 'native'): string {
  const why = reason === 'refusal' ? 'This is a permitted, harmless task. ' : reason === 'empty' ? 'Your last message was empty. ' : '';
  if (protocol === 'text')
    return `${why}Continue: write a ${TEXT_CALL_PREFIX} line to call the function, or a ${TEXT_DESCRIPTION_PREFIX} line with your description.`;
  return `${why}Continue: call the function with \`${TOOL_CALL_METHOD}\`, or submit your description with \`${TOOL_SUBMIT}\`.`;
}

/** Words every final ask and re-ask carries (the scripted `text-*` mock policies count the asks by them). */
export const FINAL_ASK_MARK = 'No more calls will be run';

export function finalPrompt(reason: string, protocol: ToolProtocol = 'native'): string {
  if (protocol === 'text')
    return `${reason} No more calls will be run. Write ${TEXT_DESCRIPTION_PREFIX} followed by your final description now. ${DESCRIPTION_ASK}`;
  return `${reason} No more calls will be run. Call \`${TOOL_SUBMIT}\` now with your final description. ${DESCRIPTION_ASK}`;
}

/**
 * The one re-ask after a final answer with no description (`answer`: that answer's kind). Small models that
 * write their calls as text answer the final ask with yet another call; measured on the 0.5B, a prompt in
 * the same tool-call form got another call, while a plain-language question sent without tools got a
 * description (docs/episodes.md#the-final-ask). So it says what happened to the last message, names the
 * function, and asks for plain sentences; the turn is sent without tools.
 */
export function finalReaskPrompt(answer: string, entryPoint: string): string {
  const what =
    answer === 'problems_only'
      ? `Your last message was a call, not a description: it was not run.`
      : answer === 'empty_submission'
        ? 'Your last description was empty.'
        : answer === 'refusal'
          ? 'This is a permitted, harmless task.'
          : 'Your last message had no description.';
  return plainFinalPrompt(what, entryPoint);
}

/** The final ask for a model that wrote its calls as text (and the re-ask's wording after `lead`). */
export function plainFinalPrompt(lead: string, entryPoint: string): string {
  return `${lead} ${FINAL_ASK_MARK}: stop calling ${entryPoint}. Answer in plain sentences, without JSON and without ${TEXT_CALL_PREFIX} lines: what does ${entryPoint} do? ${DESCRIPTION_ASK}`;
}

/** Shown when a message looked like a tool call that could not be read. */
export function unparsableCallPrompt(protocol: ToolProtocol): string {
  return protocol === 'text'
    ? `Error: no call could be read from your message. Write each call on its own line as ${TEXT_CALL_PREFIX} f(<Python literals>), or ${TEXT_DESCRIPTION_PREFIX} followed by your description. Nothing was run.`
    : `Error: your tool call could not be read. Use the \`${TOOL_CALL_METHOD}\` tool with {"arguments": "<Python literals>"}, or \`${TOOL_SUBMIT}\` with {"description": "..."}. Nothing was run.`;
}

/** Heading of the user message that returns the results of calls the agent wrote as text. */
export const TEXT_RESULTS_HEADING = 'Results:';

export const EMPTY_SUBMISSION_OBSERVATION = 'The description was empty. Submit a non-empty description.';
export const SUBMITTED_OBSERVATION = 'Description received.';

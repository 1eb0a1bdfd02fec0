// The benchmark's name setting: what the agent is told the method is called. `original` shows the dataset's
// name (`area_of_circle`); `anonymised` shows `f`, so a description has to come from probing rather than from
// the name (CodeARC, arXiv 2503.23145: anonymised names cut an 8B model's pass rate from 19.3 % to 13.7 %). The
// agent's view is anonymised everywhere it reads the name: the signature, the prompts that name the function,
// the text-call parser, and the observations (a TypeError's message names the function). The code writer sees
// the same view, so code match measures what the description carries and not the name again; the judge and
// the sandbox see the real code. Argument names are kept: a keyword call would need them mapped back, and a
// real black-box API shows them too. Pure (workflow-safe).

export const NAME_SETTINGS = ['original', 'anonymised'] as const;
export type NameSetting = (typeof NAME_SETTINGS)[number];

/** The name the agent sees in the anonymised setting. */
export const ANONYMOUS_NAME = 'f';

/** The method as the agent (and the code writer) sees it. */
export interface MethodView {
  entryPoint: string;
  signature: string;
}

/** A name as a regular expression's literal text. */
export const escapeRe = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches the line that defines function `name` (`def name(`, `async def name(`) in Python source. */
export function definesFunction(name: string): RegExp {
  return new RegExp(`^\\s*(?:async\\s+)?def\\s+${escapeRe(name)}\\s*\\(`, 'm');
}

/** The view of a method under a name setting (absent: original). */
export function methodView(method: MethodView, names: NameSetting | undefined): MethodView {
  if (names !== 'anonymised') return method;
  return {
    entryPoint: ANONYMOUS_NAME,
    signature: method.signature.replace(new RegExp(`(\\bdef\\s+)${escapeRe(method.entryPoint)}\\b`), `$1${ANONYMOUS_NAME}`),
  };
}

/**
 * An observation's text as the agent reads it: Python names the function in the messages of the errors a call
 * can raise (`area_of_circle() missing 1 required positional argument`), always as `name(`. Only an error's
 * text is rewritten, so a returned value is never changed.
 */
export function shownObservation(text: string, ok: boolean, realEntryPoint: string, names: NameSetting | undefined): string {
  if (ok || names !== 'anonymised' || realEntryPoint === ANONYMOUS_NAME) return text;
  return text.replace(new RegExp(`\\b${escapeRe(realEntryPoint)}\\(`, 'g'), `${ANONYMOUS_NAME}(`);
}

/**
 * Code the code writer wrote for the anonymised view (`def f`), callable under the real name too, so the sandbox
 * runs it beside the original with the method's own entry point.
 */
export function underRealName(code: string, realEntryPoint: string, names: NameSetting | undefined): string {
  if (names !== 'anonymised' || realEntryPoint === ANONYMOUS_NAME) return code;
  // A writer that wrote the real name anyway (the scripted oracle writes the original code) needs no alias.
  if (definesFunction(realEntryPoint).test(code)) return code;
  return `${code}\n\n${realEntryPoint} = ${ANONYMOUS_NAME}\n`;
}

/** A run's name setting from its stored config (any run kind; absent or unknown: original). */
export function runNameSetting(config: unknown): NameSetting {
  return typeof config === 'object' && config !== null && (config as { names?: unknown }).names === 'anonymised' ? 'anonymised' : 'original';
}

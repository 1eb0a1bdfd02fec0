// How much sandbox work some calls were: each call is a fresh process, and a call a time limit stopped
// ran for its whole limit. A dataset build adds these up so its summary can say where its time went.
import type { CallResult, SandboxWork } from './schemas';
import { isTimeout } from './errorTypes';

export const NO_WORK: SandboxWork = { calls: 0, ms: 0, timeouts: 0, timeoutMs: 0 };

export function workOf(results: readonly CallResult[]): SandboxWork {
  let ms = 0;
  let timeouts = 0;
  let timeoutMs = 0;
  for (const r of results) {
    ms += r.ms;
    if (!r.ok && isTimeout(r.error.type)) {
      timeouts++;
      timeoutMs += r.ms;
    }
  }
  return { calls: results.length, ms, timeouts, timeoutMs };
}

export function addWork(a: SandboxWork, b: SandboxWork): SandboxWork {
  return { calls: a.calls + b.calls, ms: a.ms + b.ms, timeouts: a.timeouts + b.timeouts, timeoutMs: a.timeoutMs + b.timeoutMs };
}

/**
 * One line for a summary, e.g. (a full `pau-v1` build): `sandbox calls: 84,137 (each in a fresh process), 360 s of
 * run time; 307 stopped at their time limit: 344 s of it (96 %)`. Run time is the calls' own (`CallResult.ms`), not
 * the process set-up around them.
 */
export function workLine(w: SandboxWork): string {
  if (w.calls === 0) return 'sandbox calls: none (every verdict was already recorded)';
  const s = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const limited =
    w.timeouts === 0
      ? 'none stopped at its time limit'
      : `${w.timeouts.toLocaleString('en-US')} stopped at their time limit: ${s(w.timeoutMs)} of it (${Math.round((100 * w.timeoutMs) / Math.max(1, w.ms))} %)`;
  return `sandbox calls: ${w.calls.toLocaleString('en-US')} (each in a fresh process), ${s(w.ms)} of run time; ${limited}`;
}

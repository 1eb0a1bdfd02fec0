// The one progress watcher of the CLI (scripts/client/watchWorkflow.ts): in place on a terminal, whole lines
// elsewhere only when the line changed, the last counts once more at the end, another line beside it, a hook
// that prints between two lines, and the workflow's result or failure.
import { describe, expect, it } from 'vitest';
import { type LineOut, watchWorkflow } from '../../scripts/client/watchWorkflow';

/** An out that records what was written; `tty` says whether it is a terminal. */
function recorder(tty: boolean): LineOut & { text: () => string } {
  const parts: string[] = [];
  // `|` where the row is cleared and the line redrawn (carriage return, erase line).
  return { isTTY: tty, write: (t: string) => parts.push(t), text: () => parts.join('').replaceAll('\r\x1b[2K', '|') };
}

/** A workflow whose line reads `lines` in turn (the last again once they run out); it ends (or fails) once each was read. */
function job(lines: string[], fail?: Error) {
  let i = 0;
  let end: () => void = () => undefined;
  const result = new Promise<string>((resolve, reject) => {
    end = () => (fail ? reject(fail) : resolve('done'));
  });
  const line = async () => {
    const l = lines[Math.min(i++, lines.length - 1)]!;
    if (i === lines.length) end();
    return l;
  };
  return { handle: { result: () => result }, line };
}

const fast = { pollMs: { tty: 5, plain: 5 }, plainMinIntervalMs: 0 };

describe('watchWorkflow', () => {
  it('elsewhere than a terminal: a whole line only when it changed, and the last counts again at the end', async () => {
    const out = recorder(false);
    const j = job(['a 1', 'a 1', 'a 2']);
    expect(await watchWorkflow(j.handle, j.line, { ...fast, out, finalLine: true })).toBe('done');
    expect(out.text()).toBe('a 1\na 2\na 2\n');
  });

  it('on a terminal: redrawn in place, the row ended once at the end', async () => {
    const out = recorder(true);
    const j = job(['x', 'y']);
    await watchWorkflow(j.handle, j.line, { ...fast, out });
    expect(out.text()).toMatch(/^\|x(\|y)+\n$/);
  });

  it('a line that cannot be read draws nothing; a failed workflow fails the watch', async () => {
    const out = recorder(false);
    const failed = { result: () => Promise.reject(new Error('the run failed')) };
    const unread = async () => {
      throw new Error('not started on a worker yet');
    };
    await expect(watchWorkflow(failed, unread, { ...fast, out })).rejects.toThrow('the run failed');
    const empty = job(['', '']);
    await expect(watchWorkflow(empty.handle, empty.line, { ...fast, out })).resolves.toBe('done');
    expect(out.text()).toBe('');
  });

  it('beside another line drawn in place: whole prefixed lines, at most one per interval', async () => {
    const out = recorder(true);
    const j = job(['b 1', 'b 2', 'b 3']);
    await watchWorkflow(j.handle, j.line, { ...fast, out, beside: { active: () => true, prefix: '[dataset]', everyMs: 10_000 } });
    expect(out.text()).toBe('|[dataset] b 1\n');
  });

  it('the hook after a line: the in-place row is ended before it prints', async () => {
    const out = recorder(true);
    const j = job(['e 1', 'e 2']);
    let called = 0;
    await watchWorkflow(j.handle, j.line, {
      ...fast,
      out,
      afterLine: async (endLine) => {
        if (called++ > 0) return;
        endLine();
        out.write('report\n');
      },
    });
    expect(out.text()).toMatch(/^\|e 1\nreport\n(\|e 2)+\n$/);
  });
});

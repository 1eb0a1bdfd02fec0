// The one watcher of the CLI's long jobs (a benchmark, a dataset build, a description run, the calibration
// suite, a judge or critic card, SFT and GRPO runs): it waits for the workflow while redrawing one progress
// line, in place on a terminal, as whole lines elsewhere (CI logs, pipes: a line only when it changed, at
// most one per `plainMinIntervalMs`). Each job says only how its line is read.

/** Where a progress line goes: a stream (drawn in place when `isTTY`), or a sink of whole lines (lineSink). */
export interface LineOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface WatchOptions {
  /** Default: stdout. */
  out?: LineOut;
  /** How often the line is recomputed, on a terminal and elsewhere. */
  pollMs: { tty: number; plain: number };
  plainMinIntervalMs: number;
  /** Draw the line once more after the workflow ended (its last counts), whatever the interval. */
  finalLine?: boolean;
  /**
   * While `active()`, another line is drawn in place (the benchmark's beside a dataset build): this one goes
   * out whole, as `${prefix} line`, every `everyMs`, clearing the row first so the other line is redrawn under it.
   */
  beside?: { active: () => boolean; prefix: string; everyMs: number };
  /** After each line drawn while the workflow runs; `endLine` ends an in-place line before anything else is printed. */
  afterLine?: (endLine: () => void) => Promise<void>;
}

/** The workflow's result (throws if it failed); `line` gives the current progress ('', or a throw, draws nothing). */
export async function watchWorkflow<T>(handle: { result(): Promise<T> }, line: () => Promise<string>, o: WatchOptions): Promise<T> {
  const out = o.out ?? process.stdout;
  const tty = out.isTTY === true;
  let finished = false;
  const result = handle.result().finally(() => {
    finished = true;
  });
  result.catch(() => undefined);
  let last = '';
  let lastPrint = 0;
  let inPlace = false;
  const endLine = () => {
    if (inPlace) out.write('\n');
    inPlace = false;
  };
  const draw = (l: string, final: boolean) => {
    if (!l) return;
    const beside = o.beside?.active() ? o.beside : undefined;
    if (tty && !beside) {
      out.write(`\r\x1b[2K${l}`);
      inPlace = true;
      return;
    }
    const due = final || Date.now() - lastPrint >= (beside ? beside.everyMs : o.plainMinIntervalMs);
    if (!due || (!beside && !final && l === last)) return;
    out.write(beside ? `${tty ? '\r\x1b[2K' : ''}${beside.prefix} ${l}\n` : `${l}\n`);
    inPlace = false;
    last = l;
    lastPrint = Date.now();
  };
  while (!finished) {
    draw(await line().catch(() => ''), false);
    if (!finished) await o.afterLine?.(endLine);
    await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, tty ? o.pollMs.tty : o.pollMs.plain))]);
  }
  if (o.finalLine) draw(await line().catch(() => ''), true);
  endLine();
  return result;
}

/** An out that hands each whole line to `log` (a line a card's count moved, into `npm start`'s log). */
export function lineSink(log: (line: string) => void): LineOut {
  return {
    write: (text: string) => {
      for (const l of text.split('\n')) if (l) log(l);
    },
  };
}

// The progress of a card being computed (judge or critic; the calibration suite too): the line, and the
// count of recorded items it comes from, with the ETA. Pure: the caller says how to read the count, and
// watchWorkflow draws the line.

/** What a card's watcher reports: methods recorded, seconds since the start, and the ETA (null before the first method). */
export interface CardProgress {
  done: number;
  total: number;
  seconds: number;
  etaSeconds: number | null;
}

/** `methods 3/20  140 s  ETA 790 s`: one progress line (`unit`: what the card counts). */
export function cardProgressLine(p: CardProgress, unit = 'methods'): string {
  return `${unit} ${p.done}/${p.total}  ${p.seconds.toFixed(0)} s${p.etaSeconds !== null ? `  ETA ${p.etaSeconds.toFixed(0)} s` : ''}`;
}

/** Items recorded so far: all of them (`done`, of `total` when known) and those recorded before the watch began (`resumed`). */
export interface CardCount {
  done: number;
  resumed?: number;
  total?: number;
}

/**
 * A card's progress from its counts as they are read: a new CardProgress when the count moved, else null
 * (and before the first count). The ETA is the mean time per item recorded since the first reading times the
 * items left (items a resumed card had recorded before cost nothing now).
 */
export function cardProgress(total: number, now: () => number = Date.now): (count: number | CardCount | null) => CardProgress | null {
  const started = now();
  let last = -1;
  let first: number | null = null;
  return (count) => {
    if (count === null) return null;
    const c = typeof count === 'number' ? { done: count } : count;
    first ??= c.resumed ?? c.done;
    if (c.done === last) return null;
    last = c.done;
    const all = c.total ?? total;
    const seconds = (now() - started) / 1000;
    const fresh = c.done - first;
    return { done: c.done, total: all, seconds, etaSeconds: fresh > 0 ? ((all - c.done) * seconds) / fresh : null };
  };
}

/** The progress line of a card (or the calibration suite) for watchWorkflow, from `read` (the count); it changes when the count does. */
export function cardLine(read: () => Promise<number | CardCount | null>, total: number, unit = 'methods'): () => Promise<string> {
  const progress = cardProgress(total);
  let line = '';
  return async () => {
    const p = progress(await read());
    if (p) line = cardProgressLine(p, unit);
    return line;
  };
}

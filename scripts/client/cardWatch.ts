// Watching a card being computed (judge or critic): the progress line and the watcher that polls the count
// of recorded items and computes the ETA. Pure: the caller says how to read the count.

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
 * Waits for a card workflow's result, calling `onProgress` whenever another item is recorded (`progress`
 * polled every `pollMs`); the ETA is the mean time per item recorded since the watch began times the items
 * left (items a resumed card had recorded before cost nothing now). Rejects as the workflow does.
 */
export async function watchCard<R>(
  progress: () => Promise<number | CardCount | null>,
  handle: { result(): Promise<R> },
  total: number,
  onProgress: (p: CardProgress) => void,
  pollMs = 2000,
): Promise<R> {
  const started = Date.now();
  let last = -1;
  let first: number | null = null;
  const timer = setInterval(() => {
    void progress()
      .then((count) => {
        if (count === null) return;
        const c = typeof count === 'number' ? { done: count } : count;
        first ??= c.resumed ?? c.done;
        if (c.done === last) return;
        last = c.done;
        const all = c.total ?? total;
        const seconds = (Date.now() - started) / 1000;
        const now = c.done - first;
        onProgress({ done: c.done, total: all, seconds, etaSeconds: now > 0 ? ((all - c.done) * seconds) / now : null });
      })
      .catch(() => undefined); // a poll that fails (the database busy) is asked again at the next tick
  }, pollMs);
  try {
    return await handle.result();
  } finally {
    clearInterval(timer);
  }
}

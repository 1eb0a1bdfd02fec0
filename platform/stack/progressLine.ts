// A progress line for long steps: rewritten in place on a terminal; elsewhere (CI logs, pipes) printed
// as plain lines, at most one every few seconds unless its phase changes.
export function progressLine(stream: NodeJS.WriteStream = process.stdout, minIntervalMs = 5_000) {
  let last = 0;
  let lastPhase = '';
  let open = false;
  return {
    update(text: string) {
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${text}`);
        open = true;
        return;
      }
      const phase = text.replace(/[0-9.,/]+/g, '#');
      if (phase !== lastPhase || Date.now() - last >= minIntervalMs) {
        stream.write(`${text}\n`);
        last = Date.now();
        lastPhase = phase;
      }
    },
    /** Ends the in-place line (before printing anything else). */
    done() {
      if (open) stream.write('\n');
      open = false;
    },
  };
}

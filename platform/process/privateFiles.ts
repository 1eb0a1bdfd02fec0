// Files with run data (reports, transcripts, exports, trainer specs) are their owner's alone: folders
// 0700 and files 0600 whatever the umask, and a folder an older checkout left open (a world-readable
// reports/) is closed on the next write. Another user of a shared machine reads none of it.
import fs from 'node:fs';

/**
 * Creates `dir` (and missing parents) 0700. `tighten`: an existing `dir` loses its group and other bits
 * too; only for folders the project owns (reports/), never for one the user named (`--out /tmp/x`).
 */
export function ensurePrivateDir(dir: string, opts: { tighten?: boolean } = {}): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!opts.tighten) return;
  const st = fs.statSync(dir);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, st.mode & 0o700);
}

/** Writes `file` 0600 (an existing file is tightened too: writeFileSync's mode applies only to new files). */
export function writePrivateFile(file: string, data: string | Uint8Array): void {
  fs.writeFileSync(file, data, { mode: 0o600 });
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
}

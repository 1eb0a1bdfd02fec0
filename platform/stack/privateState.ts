// The state folder (Temporal's database, the Postgres cluster, logs, pid files, secrets, model files)
// belongs to its owner alone: created 0700, servers started with umask 077, and the modes of a folder
// made by an older checkout (world-readable temporal.db, logs) tightened once on `stack up`.
import fs from 'node:fs';
import path from 'node:path';

export interface PrivateDirResult {
  created: boolean;
  /** Files and folders (relative to the folder, `.` itself) whose group/other permission bits were removed. */
  fixed: string[];
}

/**
 * Makes `dir` private to its owner: creates it 0700, or removes group and other access from it and from
 * everything under it (symlinks are not followed: the cluster a root-run stack links to is kept private
 * by platform/stack/postgres.ts).
 */
export function makePrivateDir(dir: string): PrivateDirResult {
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    return { created: true, fixed: [] };
  }
  const fixed: string[] = [];
  const root = fs.realpathSync(dir);
  const visit = (p: string): void => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) {
      fs.chmodSync(p, st.mode & 0o7700);
      fixed.push(`${path.relative(root, p) || '.'} (was ${(st.mode & 0o777).toString(8).padStart(4, '0')})`);
    }
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) visit(path.join(p, name));
  };
  visit(root);
  return { created: false, fixed };
}

/** The line `stack up` prints when it tightened an existing folder (nothing when there was nothing to do). */
export function describePrivateDir(dir: string, r: PrivateDirResult): string | undefined {
  if (r.fixed.length === 0) return undefined;
  const shown = r.fixed.slice(0, 3);
  const more = r.fixed.length > 3 ? ` and ${r.fixed.length - 3} more` : '';
  return `state: ${dir} is now readable by its owner only (removed group/other access from ${r.fixed.length} entries: ${shown.join(', ')}${more})`;
}

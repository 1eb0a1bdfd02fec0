// A throwaway user of the machine for the "seen by another user" checks (test/security, root only). useradd and
// userdel take the lock on /etc/passwd and /etc/group; when another file adds or removes its user at the same
// moment (integration files run several at once), one of them can fail with "cannot lock /etc/passwd": such a
// failure is retried, any other is an error.
import { spawnSync } from 'node:child_process';
import { sleep } from '../../platform/process/processes';

async function withLockRetries(what: string, args: string[], tries = 20): Promise<void> {
  let last = '';
  for (let attempt = 1; attempt <= tries; attempt++) {
    const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
    if (r.status === 0) return;
    last = `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim();
    if (!/lock/i.test(last)) break;
    if (attempt < tries) await sleep(250 * attempt);
  }
  throw new Error(`${what}: ${args.join(' ')} failed: ${last}`);
}

/** Adds `user` with its own group, no home and no login shell. */
export function addThrowawayUser(user: string): Promise<void> {
  return withLockRetries('add a throwaway user', ['useradd', '--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', user]);
}

/** Removes `user` (and its group); a user that is already gone is no error. */
export async function removeThrowawayUser(user: string): Promise<void> {
  if (spawnSync('id', ['-u', user]).status !== 0) return;
  await withLockRetries('remove a throwaway user', ['userdel', user]);
}

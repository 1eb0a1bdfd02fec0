// Secrets the local stack creates for itself (a model server's API key, the local Postgres password):
// `<PAU_STATE_DIR>/secrets/<name>`, the folder 0700 and each file 0600, 32 random bytes base64url,
// created on first use. Nothing here is ever logged or put on a command line.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { env } from './env';

export type SecretName = 'postgres-password' | 'model-server-key';

export function secretPath(name: SecretName): string {
  return path.join(env().PAU_STATE_DIR, 'secrets', name);
}

/** The secret's value; created (atomically, so two processes agree on one value) when missing. */
export function readOrCreateSecret(name: SecretName): string {
  const file = secretPath(name);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, randomBytes(32).toString('base64url') + '\n', { mode: 0o600 });
  try {
    // link() fails when another process created the file first: then its value wins.
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

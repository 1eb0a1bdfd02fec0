// Secrets the local stack creates for itself (the local Postgres password, the local model servers' and the
// scripted mock server's API key, the Temporal payload codec's key and the time it came into use, the codec
// endpoint's token): random, made on first use, kept in <PAU_STATE_DIR>/secrets/<name> (folder 0700, file 0600) and
// never anywhere else. External services bring their own credentials through the environment instead.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { env } from './env';

export type SecretName = 'postgres-password' | 'model-server-key' | 'temporal-codec-key' | 'temporal-codec-cutover' | 'codec-server-token';

export function secretPath(name: SecretName): string {
  return path.join(env().PAU_STATE_DIR, 'secrets', name);
}

/**
 * The secret's value: read from its file, or created there first (32 random bytes, base64url, unless
 * `make` gives the value: the codec's cut-over time).
 */
export function readOrCreateSecret(name: SecretName, make: () => string = () => crypto.randomBytes(32).toString('base64url')): string {
  const file = secretPath(name);
  ensurePrivateDir(path.dirname(file));
  const existing = readSecretFile(file);
  if (existing !== undefined) return existing;
  const value = make();
  // Written in full to a temporary name opened O_CREAT|O_EXCL with mode 0600 (a umask can only take bits
  // away), then hard-linked to its real name, which fails if another process got there first: a reader
  // never sees a half-written file, two racing creators agree on one value, and no moment exists in
  // which the value sits in a file others may read.
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
  try {
    fs.writeSync(fd, `${value}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const stored = readSecretFile(file);
  if (stored === undefined) throw new Error(`${file}: could not create the secret`);
  return stored;
}

function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(dir);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, st.mode & 0o700);
}

/** The trimmed contents, or undefined when the file does not exist. Tightens a file others could read. */
function readSecretFile(file: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (!st.isFile()) throw new Error(`${file}: expected a regular file holding a secret`);
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && st.uid !== uid)
    throw new Error(`${file} belongs to uid ${st.uid}, not to you (uid ${uid}); remove it and run \`pau stack up\` again`);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  const value = fs.readFileSync(file, 'utf8').trim();
  if (value === '') throw new Error(`${file} is empty; remove it (a new secret is made on next use) or restore it from a backup`);
  return value;
}

/** `a` equals the secret `b`, compared in constant time (a request's token against ours). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** An Authorization header that is exactly `Bearer <secret>`. */
export function bearsSecret(authorization: string | undefined, secret: string): boolean {
  return sameSecret(authorization ?? '', `Bearer ${secret}`);
}

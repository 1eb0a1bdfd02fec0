// Password authentication of the project-local cluster: the SCRAM-SHA-256 verifier handed to Postgres
// (the server stores it as given, so the password itself never reaches the server, its logs or a file
// the postgres user reads), and reading and rewriting pg_hba.conf for the upgrade of a trust-auth
// cluster made by an older checkout.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (RFC 5802/7677, as Postgres stores it). */
export function scramVerifier(password: string, salt: Buffer = crypto.randomBytes(16), iterations = 4096): string {
  const salted = crypto.pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const hmac = (key: Buffer, text: string) => crypto.createHmac('sha256', key).update(text).digest();
  const storedKey = crypto.createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const serverKey = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

const AUTH_METHODS = new Set(['trust', 'reject', 'scram-sha-256', 'md5', 'password', 'gss', 'sspi', 'ident', 'peer', 'pam', 'ldap', 'radius', 'cert', 'bsd']);
const RECORD_TYPES = new Set(['local', 'host', 'hostssl', 'hostnossl', 'hostgssenc', 'hostnogssenc']);

export const hbaFile = (dataDir: string) => path.join(dataDir, 'pg_hba.conf');

/** True when any record of the cluster's pg_hba.conf lets a client in without a password. */
export function hbaUsesTrust(dataDir: string): boolean {
  const file = hbaFile(dataDir);
  return fs.existsSync(file) && /(^|\s)trust(\s|$)/m.test(stripComments(fs.readFileSync(file, 'utf8')));
}

function stripComments(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .join('\n');
}

/**
 * pg_hba.conf with every `trust` record turned into `scram-sha-256`, comments and layout kept. Throws
 * (nothing is changed then) where it cannot tell that the result is right: include directives, quoted
 * fields, continuation lines, or `trust` somewhere other than a record's method field.
 */
export function hbaWithScram(text: string): string {
  return text
    .split('\n')
    .map((line, i) => {
      const body = line.replace(/#.*$/, '');
      if (body.trim() === '') return line;
      const where = `pg_hba.conf line ${i + 1} (${line.trim()})`;
      if (/["\\]/.test(body)) throw new Error(`${where}: quoted fields or continuation lines are not rewritten automatically`);
      const parts = body.split(/(\s+)/); // tokens at even indexes (after a leading empty one when indented)
      const tokens = parts.map((t, k) => ({ t, k })).filter(({ t }) => t !== '' && !/^\s+$/.test(t));
      if (/^include/.test(tokens[0]?.t ?? '')) throw new Error(`${where}: include directives are not followed automatically`);
      if (!RECORD_TYPES.has(tokens[0]?.t ?? '')) {
        if (/(^|\s)trust(\s|$)/.test(body)) throw new Error(`${where}: not a record this upgrade understands`);
        return line;
      }
      const method = tokens.slice(3).find(({ t }) => AUTH_METHODS.has(t));
      if (!method) throw new Error(`${where}: no authentication method found`);
      const others = tokens.filter(({ t, k }) => t === 'trust' && k !== method.k);
      if (others.length > 0) throw new Error(`${where}: "trust" appears outside the method field`);
      if (method.t !== 'trust') return line;
      parts[method.k] = 'scram-sha-256';
      return parts.join('') + line.slice(body.length);
    })
    .join('\n');
}

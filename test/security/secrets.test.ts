// The secrets module: where a secret lives, that it is created private (even under umask 000), read back
// unchanged, agreed on by processes racing to create it, and that a file others could read is tightened.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, reloadEnv } from '../../config/env';
import { readOrCreateSecret, secretPath } from '../../config/secrets';

const mode = (p: string) => fs.statSync(p).mode & 0o777;
const stateDir = () => process.env.PAU_STATE_DIR!;

// A state dir of this file's own: the tests below remove and remake the model servers' key, which the run's
// scripted mock server (started with the run's key) would refuse from then on in every later file of this slot.
const runStateDir = process.env.PAU_STATE_DIR;
beforeAll(() => {
  process.env.PAU_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-secrets-'));
  reloadEnv();
});
afterAll(() => {
  fs.rmSync(stateDir(), { recursive: true, force: true });
  process.env.PAU_STATE_DIR = runStateDir;
  reloadEnv();
});

describe('secrets', () => {
  it('lives in <PAU_STATE_DIR>/secrets/<name>; made 0600 in a 0700 folder even under umask 000; 32 random bytes, base64url', () => {
    const file = secretPath('model-server-key');
    expect(file).toBe(path.join(stateDir(), 'secrets', 'model-server-key'));
    fs.rmSync(file, { force: true });
    const old = process.umask(0);
    let value: string;
    try {
      value = readOrCreateSecret('model-server-key');
    } finally {
      process.umask(old);
    }
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(value, 'base64url')).toHaveLength(32);
    expect(mode(file)).toBe(0o600);
    expect(mode(path.dirname(file))).toBe(0o700);
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readOrCreateSecret('model-server-key')).toBe(value);
    // The other name is a different secret.
    expect(readOrCreateSecret('postgres-password')).not.toBe(value);
  });

  it('tightens a secret file and folder that others could read, keeping the value', () => {
    const file = secretPath('model-server-key');
    const value = readOrCreateSecret('model-server-key');
    fs.chmodSync(file, 0o644);
    fs.chmodSync(path.dirname(file), 0o755);
    expect(readOrCreateSecret('model-server-key')).toBe(value);
    expect(mode(file)).toBe(0o600);
    expect(mode(path.dirname(file))).toBe(0o700);
  });

  it('processes racing to create a secret all get the same value', async () => {
    const dir = fs.mkdtempSync(path.join(stateDir(), 'race-'));
    const script = `import { readOrCreateSecret } from ${JSON.stringify(path.join(PROJECT_ROOT, 'config', 'secrets.ts'))}; process.stdout.write(readOrCreateSecret('model-server-key'));`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: PROJECT_ROOT,
          env: { ...process.env, PAU_STATE_DIR: dir },
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      });
    const values = await Promise.all(Array.from({ length: 6 }, run));
    expect(new Set(values).size).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'secrets', 'model-server-key'), 'utf8').trim()).toBe(values[0]);
    expect(fs.readdirSync(path.join(dir, 'secrets'))).toEqual(['model-server-key']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

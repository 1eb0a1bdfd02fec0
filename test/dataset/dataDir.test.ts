// A dataset build reads its sources from the directory the command line names (`--data-dir`, else the
// command's PAU_DATA_DIR), recorded in the build's input, whatever the worker's environment says.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { env } from '../../config/env';
import { getDataset } from '../../platform/dataset/store';
import { SOURCE_FILES } from '../../domain/dataset/sources';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({ workers: ['pau', 'pau-sandbox'], dbPool: 4 });
afterAll(async () => {
  await closeSharedSandboxPool();
});

function copyWith(file: string, corrupt: boolean): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-data-'));
  const bytes = fs.readFileSync(path.join(env().PAU_DATA_DIR, file));
  if (corrupt) bytes[bytes.length - 10] = (bytes[bytes.length - 10] ?? 0) ^ 0xff;
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), bytes);
  return dir;
}

describe('dataset build source directory', () => {
  it('--data-dir decides (a corrupt copy fails its checksum though the worker has good data) and is recorded', { timeout: 240_000 }, async () => {
    const file = SOURCE_FILES.humanevalGz.path;
    const bad = copyWith(file, true);
    const args = ['dataset', 'build', '--sources', 'humaneval', '--limit', '3', '--test', '2', '--validation', '0'];
    const r1 = await runCli([...args, '--name', 'dd-bad', '--data-dir', bad], {}, 200_000);
    expect(r1.code).not.toBe(0);
    expect(`${r1.stdout}\n${r1.stderr}`).toMatch(/checksum mismatch/i);
    expect(`${r1.stdout}\n${r1.stderr}`).toContain(bad);

    const good = copyWith(file, false);
    const r2 = await runCli([...args, '--name', 'dd-good', '--data-dir', good], {}, 200_000);
    expect(r2.code).toBe(0);
    const row = await getDataset(stack.db, 'dd-good');
    expect(row?.status).toBe('ready');
    expect((row?.config as { dataDir?: string } | undefined)?.dataDir).toBe(good);
  });
});

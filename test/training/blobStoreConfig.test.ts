// The checkpoint store's configuration (config/blobStore.ts): Postgres by default; `s3` validated, each
// missing or bad field named by its variable; the S3 client is not built, and a store configured with it
// says so instead of storing anything.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlobStore, BlobStoreUnavailableError } from '../../platform/storage/blobStore';
import { blobStoreConfig } from '../../config/blobStore';
import { ConfigError, parseEnv } from '../../config/env';
import type { Db } from '../../db/client';

const s3 = { PAU_CHECKPOINT_STORE: 's3', PAU_S3_ENDPOINT: 'https://s3.example.test', PAU_S3_BUCKET: 'pau-checkpoints' };

describe('checkpoint store configuration', () => {
  it('postgres unless PAU_CHECKPOINT_STORE says s3; s3 with its defaults', () => {
    expect(blobStoreConfig(parseEnv({}))).toEqual({ kind: 'postgres' });
    expect(blobStoreConfig(parseEnv(s3))).toEqual({
      kind: 's3',
      endpoint: 'https://s3.example.test',
      bucket: 'pau-checkpoints',
      region: 'us-east-1',
      prefix: 'pau/blobs/',
      accessKeyEnv: 'AWS_ACCESS_KEY_ID',
      secretKeyEnv: 'AWS_SECRET_ACCESS_KEY',
    });
  });

  it('names the variable that is missing or wrong', () => {
    const problem = (source: NodeJS.ProcessEnv) => {
      try {
        blobStoreConfig(parseEnv(source));
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).issues.map((i) => `${i.variable}: ${i.problem}`);
      }
      return [];
    };
    expect(problem({ PAU_CHECKPOINT_STORE: 's3', PAU_S3_ENDPOINT: 'https://s3.example.test' })).toEqual([
      expect.stringMatching(/^PAU_S3_BUCKET: .*\(needed because PAU_CHECKPOINT_STORE=s3\)$/),
    ]);
    expect(problem({ ...s3, PAU_S3_BUCKET: 'Bad_Bucket' })).toEqual([expect.stringMatching(/^PAU_S3_BUCKET: an S3 bucket name/)]);
    expect(() => parseEnv({ PAU_CHECKPOINT_STORE: 'gcs' })).toThrow(/PAU_CHECKPOINT_STORE/);
    expect(() => parseEnv({ ...s3, PAU_S3_ENDPOINT: 'ftp://x' })).toThrow(/PAU_S3_ENDPOINT/);
  });

  it('the S3 client is not built: storing with it fails with a clear error', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pau-s3-')), 'f.bin');
    fs.writeFileSync(file, 'bytes');
    // A database whose blob lookup finds nothing (the store is asked only after that).
    const db = { select: () => ({ from: () => ({ where: () => ({ limit: async () => [] }) }) }) } as unknown as Db;
    const err = await new BlobStore(db, blobStoreConfig(parseEnv(s3))).put(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BlobStoreUnavailableError);
    expect((err as Error).message).toMatch(
      /^PAU_CHECKPOINT_STORE=s3 \(https:\/\/s3\.example\.test, bucket pau-checkpoints\) is configured, but this build has no S3 client yet/,
    );
    fs.rmSync(path.dirname(file), { recursive: true });
  });
});

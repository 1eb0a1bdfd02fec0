// Where checkpoint files are stored so every host can fetch them: Postgres (default) or an S3-compatible
// bucket. Read from the validated environment (config/env.ts); an `s3` store with a missing field is a
// ConfigError naming it. The S3 client itself is not built yet (activities/training/blobStore.ts).
import { z } from 'zod';
import { cacheDir, ConfigError, env, type Env } from './env';
import path from 'node:path';

export const blobStoreConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('postgres') }),
  z.strictObject({
    kind: z.literal('s3'),
    endpoint: z.url({ protocol: /^https?$/ }),
    bucket: z
      .string()
      .min(3)
      .max(63)
      .regex(/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/, 'an S3 bucket name: lower-case letters, digits, . and -'),
    region: z.string().min(1),
    prefix: z.string(),
    /** The names of the variables holding the credentials (never the keys themselves). */
    accessKeyEnv: z.string().min(1),
    secretKeyEnv: z.string().min(1),
  }),
]);
export type BlobStoreConfig = z.infer<typeof blobStoreConfigSchema>;

/** The store named by PAU_CHECKPOINT_STORE, validated. */
export function blobStoreConfig(e: Env = env()): BlobStoreConfig {
  if (e.PAU_CHECKPOINT_STORE === 'postgres') return { kind: 'postgres' };
  const parsed = blobStoreConfigSchema.safeParse({
    kind: 's3',
    endpoint: e.PAU_S3_ENDPOINT,
    bucket: e.PAU_S3_BUCKET,
    region: e.PAU_S3_REGION,
    prefix: e.PAU_S3_PREFIX,
    accessKeyEnv: 'AWS_ACCESS_KEY_ID',
    secretKeyEnv: 'AWS_SECRET_ACCESS_KEY',
  });
  if (!parsed.success) {
    const variable: Record<string, string> = { endpoint: 'PAU_S3_ENDPOINT', bucket: 'PAU_S3_BUCKET', region: 'PAU_S3_REGION', prefix: 'PAU_S3_PREFIX' };
    throw new ConfigError(
      parsed.error.issues.map((i) => ({
        variable: variable[String(i.path[0])] ?? String(i.path[0]),
        problem: `${i.message} (needed because PAU_CHECKPOINT_STORE=s3)`,
      })),
    );
  }
  return parsed.data;
}

/** Where this host keeps the checkpoint files it fetched: PAU_CHECKPOINT_CACHE_DIR, else <cache dir>/checkpoints. */
export function checkpointCacheDir(e: Env = env()): string {
  return e.PAU_CHECKPOINT_CACHE_DIR ? path.resolve(e.PAU_CHECKPOINT_CACHE_DIR) : path.join(cacheDir(e), 'checkpoints');
}

// Content-addressed blobs every host can read (db/schema/blobs.ts): `put` stores a file under its sha256
// (the same bytes twice = one blob, a no-op the second time); `fetchTo` writes a blob to a local file and
// verifies its hash before the file appears under its name. Bytes go to Postgres (1 MiB bytea chunks, in
// one transaction with the blob's row, so a blob is either complete or absent) unless PAU_CHECKPOINT_STORE
// says `s3` (config/blobStore.ts): that store's client is not built yet and says so.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { and, eq, gte, lt } from 'drizzle-orm';
import type { BlobStoreConfig } from '../../config/blobStore';
import type { Db } from '../../db/client';
import { blobChunks, blobs } from '../../db/schema/blobs';

export const CHUNK_BYTES = 1 << 20;
/** Chunks read per query when fetching (8 MiB in memory at most). */
const FETCH_BATCH = 8;
export const SHA256_RE = /^[0-9a-f]{64}$/;

/** The bytes found do not hash to what was recorded: a corrupt store, or a file changed on disk. */
export class BlobCorruptError extends Error {
  override name = 'BlobCorruptError';
}
/** No such blob in the store. */
export class BlobMissingError extends Error {
  override name = 'BlobMissingError';
}
/** The configured store cannot be used by this build (s3). */
export class BlobStoreUnavailableError extends Error {
  override name = 'BlobStoreUnavailableError';
}

export interface StoredBlob {
  sha256: string;
  bytes: number;
  /** False when the blob was already stored (nothing written). */
  written: boolean;
}

export async function sha256File(file: string): Promise<{ sha256: string; bytes: number }> {
  const h = crypto.createHash('sha256');
  let bytes = 0;
  for await (const chunk of fs.createReadStream(file)) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), bytes };
}

/** A file read in CHUNK_BYTES pieces (the last one shorter). */
async function* chunksOf(file: string): AsyncGenerator<Buffer> {
  const fh = await fs.promises.open(file, 'r');
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      let filled = 0;
      while (filled < CHUNK_BYTES) {
        const { bytesRead } = await fh.read(buf, filled, CHUNK_BYTES - filled, null);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled === 0) return;
      yield buf.subarray(0, filled);
      if (filled < CHUNK_BYTES) return;
    }
  } finally {
    await fh.close();
  }
}

const s3NotBuilt = (c: Extract<BlobStoreConfig, { kind: 's3' }>) =>
  new BlobStoreUnavailableError(
    `PAU_CHECKPOINT_STORE=s3 (${c.endpoint}, bucket ${c.bucket}) is configured, but this build has no S3 client yet: unset PAU_CHECKPOINT_STORE to store checkpoint files in Postgres (docs/checkpoints.md, "Checkpoints that travel")`,
  );

export class BlobStore {
  constructor(
    private readonly db: Db,
    readonly config: BlobStoreConfig = { kind: 'postgres' },
  ) {}

  async has(sha256: string): Promise<boolean> {
    const [row] = await this.db.select({ sha256: blobs.sha256 }).from(blobs).where(eq(blobs.sha256, sha256)).limit(1);
    return row !== undefined;
  }

  /**
   * Stores `file` under its sha256. `expectedSha256` (e.g. the trainer's done event): a file whose bytes hash
   * otherwise was changed since it was written and is refused (BlobCorruptError), nothing stored.
   */
  async put(file: string, expectedSha256?: string): Promise<StoredBlob> {
    const { sha256, bytes } = await sha256File(file);
    if (expectedSha256 !== undefined && sha256 !== expectedSha256) {
      throw new BlobCorruptError(`${file} hashes to ${sha256}, not the ${expectedSha256} recorded when it was written: it changed since; not stored`);
    }
    if (await this.has(sha256)) return { sha256, bytes, written: false };
    if (this.config.kind === 's3') throw s3NotBuilt(this.config);
    const written = await this.db.transaction(async (tx) => {
      // The row first: a concurrent writer of the same bytes waits on it and then finds it (no-op).
      const [mine] = await tx
        .insert(blobs)
        .values({ sha256, bytes, store: 'postgres', chunkBytes: CHUNK_BYTES, chunks: Math.ceil(bytes / CHUNK_BYTES) })
        .onConflictDoNothing()
        .returning({ sha256: blobs.sha256 });
      if (!mine) return false;
      const h = crypto.createHash('sha256');
      let idx = 0;
      let total = 0;
      for await (const data of chunksOf(file)) {
        h.update(data);
        total += data.length;
        await tx.insert(blobChunks).values({ sha256, idx: idx++, data });
      }
      // Re-read while storing: a file rewritten between hashing and storing rolls the transaction back.
      const again = h.digest('hex');
      if (again !== sha256 || total !== bytes) throw new BlobCorruptError(`${file} changed while it was being stored (${sha256} then ${again}); not stored`);
      return true;
    });
    return { sha256, bytes, written };
  }

  /**
   * Writes blob `sha256` to `dest`: into a temporary file beside it, hashed as it is written, renamed to
   * `dest` only when the hash and size match. A mismatch is BlobCorruptError and leaves `dest` as it was.
   */
  async fetchTo(sha256: string, dest: string): Promise<{ bytes: number }> {
    const [blob] = await this.db.select().from(blobs).where(eq(blobs.sha256, sha256)).limit(1);
    if (!blob) throw new BlobMissingError(`blob ${sha256} is not in the store`);
    if (blob.store === 's3') {
      if (this.config.kind === 's3') throw s3NotBuilt(this.config);
      throw new BlobStoreUnavailableError(`blob ${sha256} is stored in S3, and this host has no S3 store configured (PAU_CHECKPOINT_STORE=s3)`);
    }
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.part-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
    const fh = await fs.promises.open(tmp, 'w', 0o600);
    const h = crypto.createHash('sha256');
    let bytes = 0;
    let chunks = 0;
    try {
      for (let from = 0; from < blob.chunks; from += FETCH_BATCH) {
        const rows = await this.db
          .select({ idx: blobChunks.idx, data: blobChunks.data })
          .from(blobChunks)
          .where(and(eq(blobChunks.sha256, sha256), gte(blobChunks.idx, from), lt(blobChunks.idx, from + FETCH_BATCH)))
          .orderBy(blobChunks.idx);
        for (const r of rows) {
          if (r.idx !== chunks) throw new BlobCorruptError(`blob ${sha256}: chunk ${chunks} is missing from the store`);
          h.update(r.data);
          await fh.write(r.data);
          bytes += r.data.length;
          chunks++;
        }
        if (rows.length === 0) break;
      }
      await fh.sync();
      await fh.close();
      const got = h.digest('hex');
      if (chunks !== blob.chunks || bytes !== blob.bytes || got !== sha256) {
        throw new BlobCorruptError(
          `the stored blob ${sha256} is corrupt: ${bytes} bytes in ${chunks} chunks hash to ${got} (expected ${blob.bytes} bytes in ${blob.chunks} chunks); refused, nothing written to ${dest}`,
        );
      }
      fs.renameSync(tmp, dest);
      return { bytes };
    } catch (err) {
      await fh.close().catch(() => undefined);
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
}

// Content-addressed file storage every host can read: checkpoints' adapter files (docs/checkpoints.md,
// "Checkpoints that travel"). A blob is keyed by its sha256, so storing the same bytes twice is a no-op.
// Bytes live in Postgres (`blob_chunks`, 1 MiB bytea rows) unless the blob row says another store holds them.
// Why bytea chunks and not Postgres large objects: they are ordinary rows, so drizzle migrations define them,
// deleting a blob cascades to its chunks (a large object outlives the row naming it until vacuumlo runs),
// logical replication and a plain pg_dump copy them, and a reader fetches one chunk at a time without the
// lo_* API or holding a whole file in memory.
import { customType, index, integer, bigint, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { checkpoints } from './training';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});

export const blobs = pgTable('blobs', {
  /** Hex sha256 of the whole content. */
  sha256: text('sha256').primaryKey(),
  bytes: bigint('bytes', { mode: 'number' }).notNull(),
  /** `postgres` (blob_chunks) or `s3` (an S3-compatible bucket, key `<prefix><sha256>`). */
  store: text('store', { enum: ['postgres', 's3'] }).notNull(),
  chunkBytes: integer('chunk_bytes').notNull(),
  chunks: integer('chunks').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const blobChunks = pgTable(
  'blob_chunks',
  {
    sha256: text('sha256')
      .notNull()
      .references(() => blobs.sha256, { onDelete: 'cascade' }),
    idx: integer('idx').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sha256, t.idx] })],
);

/** The files of a checkpoint (adapter safetensors + config, the GGUF export), by name, as stored blobs. */
export const checkpointFiles = pgTable(
  'checkpoint_files',
  {
    checkpointId: text('checkpoint_id')
      .notNull()
      .references(() => checkpoints.id, { onDelete: 'cascade' }),
    /** The file's name in a checkpoint directory: adapter_model.safetensors, adapter_config.json, adapter.gguf. */
    name: text('name').notNull(),
    sha256: text('sha256')
      .notNull()
      .references(() => blobs.sha256),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.checkpointId, t.name] }), index('checkpoint_files_sha_idx').on(t.sha256)],
);

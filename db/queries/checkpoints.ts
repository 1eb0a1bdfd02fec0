// A checkpoint's row, read by the model registry (activities/llm/checkpointModels.ts) and the CLI's judge choice.
import { eq } from 'drizzle-orm';
import type { Db } from '../client';
import { checkpoints } from '../schema/training';

export type Checkpoint = typeof checkpoints.$inferSelect;

export async function loadCheckpoint(db: Db, id: string): Promise<Checkpoint | undefined> {
  const [row] = await db.select().from(checkpoints).where(eq(checkpoints.id, id)).limit(1);
  return row;
}

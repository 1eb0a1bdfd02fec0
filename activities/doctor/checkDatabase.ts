// Doctor part on `pau`: a Postgres write then read, keyed by the workflow so a retry upserts.
import { callingWorkflowId } from '../common/workflowContext';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { doctorChecks } from '../../db/schema/ops';

export interface DoctorPartResult {
  part: string;
  ok: boolean;
  detail: string;
}

export function makeCheckDatabase(db: () => Db) {
  return async function checkDatabase(): Promise<DoctorPartResult> {
    const workflowId = callingWorkflowId();
    const started = Date.now();
    const [{ version } = { version: '?' }] = (await db().execute<{ version: string }>(sql`select version() as version`)).rows;
    await db()
      .insert(doctorChecks)
      .values({ workflowId, part: 'postgres', ok: true, detail: { version } })
      .onConflictDoUpdate({ target: [doctorChecks.workflowId, doctorChecks.part], set: { ok: true, detail: { version }, checkedAt: new Date() } });
    const back = await db()
      .select()
      .from(doctorChecks)
      .where(and(eq(doctorChecks.workflowId, workflowId), eq(doctorChecks.part, 'postgres')));
    const ok = back.length === 1 && back[0]?.ok === true;
    return {
      part: 'postgres',
      ok,
      detail: `${ok ? 'wrote and read back a row' : 'row missing after write'} in ${Date.now() - started} ms; ${String(version).split(' ').slice(0, 2).join(' ')}`,
    };
  };
}

/** Records the other parts' results (they ran on other queues, which do not touch Postgres). */
export function makeRecordDoctorResults(db: () => Db) {
  return async function recordDoctorResults(results: DoctorPartResult[]): Promise<void> {
    const workflowId = callingWorkflowId();
    for (const r of results) {
      await db()
        .insert(doctorChecks)
        .values({ workflowId, part: r.part, ok: r.ok, detail: { detail: r.detail } })
        .onConflictDoUpdate({ target: [doctorChecks.workflowId, doctorChecks.part], set: { ok: r.ok, detail: { detail: r.detail }, checkedAt: new Date() } });
    }
  };
}

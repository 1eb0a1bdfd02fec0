// The executor's binary wire protocol (the reference is the docstring of sandbox/executor.py), and the
// schemas of what comes back: the executor's own records (ready, end) and the child's result, which is
// untrusted (the method's process wrote it) and validated here, call by call.
import { z } from 'zod';
import { encodedValueSchema } from '../../domain/python/codec';
import { coverageSchema, errorInfoSchema } from '../../domain/sandbox/schemas';
import { SANDBOX_ERROR } from '../../domain/sandbox/errorTypes';

/** client -> executor: <8I op, seq, length, timeoutMs, cpuSeconds, memoryMb, stdoutBytes, resultBytes>. */
export const REQUEST_HEADER_BYTES = 32;
/** executor -> client: <3I kind, seq, length>. */
export const FRAME_HEADER_BYTES = 12;

export const OP = { job: 1, batch: 2, exit: 3 } as const;
export const FRAME = { ready: 1, stdout: 2, result: 3, end: 4, error: 6 } as const;

/** Exit status of a call child that could not configure itself (sandbox/child.py SETUP_FAILED). */
export const CHILD_SETUP_FAILED = 71;

const u32 = z.number().int().min(0).max(0xffff_ffff);

/** What the executor enforces on one job from outside the child (header words: u32 each). */
export const jobLimitsSchema = z.object({ timeoutMs: u32, cpuSeconds: u32, memoryMb: u32, stdoutBytes: u32, resultBytes: u32 });
export type JobLimits = z.infer<typeof jobLimitsSchema>;

/** Calls in one BATCH message at most (more go in further messages). */
export const MAX_BATCH_CALLS = 4096;

/** A BATCH request: many children's jobs (JSON text each) under one set of limits. */
export const batchRequestSchema = z.object({
  seq: u32,
  jobs: z.array(z.string().min(2)).min(1).max(MAX_BATCH_CALLS),
  limits: jobLimitsSchema,
});
export type BatchRequest = z.infer<typeof batchRequestSchema>;

/** One request as one buffer (one write): header, then the payload text as UTF-8. */
export function encodeRequest(op: number, seq: number, payload: string, lim?: JobLimits): Buffer {
  const len = payload ? Buffer.byteLength(payload) : 0;
  const buf = Buffer.allocUnsafe(REQUEST_HEADER_BYTES + len);
  const words = [op, seq, len, lim?.timeoutMs ?? 0, lim?.cpuSeconds ?? 0, lim?.memoryMb ?? 0, lim?.stdoutBytes ?? 0, lim?.resultBytes ?? 0];
  words.forEach((w, i) => {
    buf.writeUInt32LE(w, i * 4);
  });
  if (len) buf.write(payload, REQUEST_HEADER_BYTES, 'utf8');
  return buf;
}

/**
 * One BATCH request as one buffer: the header (op 2, the first call's seq, the payload's length, the
 * limits), then <u32 count> and per job <u32 length> + its UTF-8 bytes. Job i answers with seq + i.
 * Validated first: a bad request is the caller's error, never a malformed message on the wire.
 */
export function encodeBatch(input: BatchRequest): Buffer {
  const req = batchRequestSchema.parse(input);
  const lens = req.jobs.map((j) => Buffer.byteLength(j));
  const payload = 4 + lens.reduce((a, n) => a + 4 + n, 0);
  if (payload > 0xffff_ffff) throw new RangeError(`a batch of ${payload} bytes does not fit one message`);
  const buf = Buffer.allocUnsafe(REQUEST_HEADER_BYTES + payload);
  const l = req.limits;
  [OP.batch, req.seq, payload, l.timeoutMs, l.cpuSeconds, l.memoryMb, l.stdoutBytes, l.resultBytes].forEach((w, i) => {
    buf.writeUInt32LE(w, i * 4);
  });
  let off = REQUEST_HEADER_BYTES;
  buf.writeUInt32LE(req.jobs.length, off);
  off += 4;
  req.jobs.forEach((j, i) => {
    buf.writeUInt32LE(lens[i]!, off);
    off += 4 + buf.write(j, off + 4, 'utf8');
  });
  return buf;
}

/** Splits the executor's output stream into frames. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (kind: number, seq: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    let off = 0;
    while (this.buf.length - off >= FRAME_HEADER_BYTES) {
      const len = this.buf.readUInt32LE(off + 8);
      if (this.buf.length - off - FRAME_HEADER_BYTES < len) break;
      const kind = this.buf.readUInt32LE(off);
      const seq = this.buf.readUInt32LE(off + 4);
      const start = off + FRAME_HEADER_BYTES;
      off = start + len;
      this.onFrame(kind, seq, this.buf.subarray(start, off));
    }
    this.buf = off === this.buf.length ? Buffer.alloc(0) : this.buf.subarray(off);
  }
}

export const readyRecordSchema = z.object({
  pid: z.number().int(),
  python: z.string(),
  seccomp: z.object({ ok: z.boolean(), detail: z.string() }),
});
export type ReadyRecord = z.infer<typeof readyRecordSchema>;

/** The executor's end statuses; the limit ones carry the sandbox error type they become (platform/sandbox/batch.ts). */
export const END_STATUSES = ['ok', SANDBOX_ERROR.timeout, SANDBOX_ERROR.outputLimit, SANDBOX_ERROR.resultLimit, 'NoResult', 'Lost'] as const;
export const endRecordSchema = z.object({
  status: z.enum(END_STATUSES),
  /** Wall time from the request to the end of the call, measured by the executor. */
  ms: z.number(),
  signal: z.number().int().optional(),
  exit: z.number().int().optional(),
});
export type EndRecord = z.infer<typeof endRecordSchema>;

export const errorRecordSchema = z.object({ message: z.string() });

// The child's own result (untrusted). `ms` may be missing (the executor's wall time is used then);
// arcs/events/sourceError are batch bookkeeping that the client strips.
const childExtras = {
  ms: z.number().optional(),
  arcs: z.array(z.unknown()).optional(),
  events: z.array(z.unknown()).optional(),
  sourceError: z.boolean().optional(),
};
export const childCallResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: encodedValueSchema, repr: z.string(), ...childExtras }),
  z.object({ ok: z.literal(false), error: errorInfoSchema, ...childExtras }),
]);
export type ChildCallResult = z.infer<typeof childCallResultSchema>;

export const childAnalysisSchema = z.object({
  coverage: coverageSchema.optional(),
  coverageError: z.string().optional(),
  staticFlags: z.array(z.string()).optional(),
});

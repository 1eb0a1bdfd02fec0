// The sandbox's own error types: the TypeScript enum names exactly the set the Python side writes, and
// the predicates match by exact name (a method's own `TimeoutError` is the method's behaviour).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { observationCategory } from '../../domain/episode/observation';
import { isEvidence } from '../../domain/judge/diagnostics';
import { isLimit, isNotRun, isSandboxErrorType, isSandboxFault, isTimeout, SANDBOX_ERROR, SANDBOX_ERROR_TYPES } from '../../domain/sandbox/errorTypes';

const SANDBOX_DIR = path.resolve(import.meta.dirname, '../../sandbox');

/** Every error type the Python side writes: `_error("X", ...)` and raw `"type":"X"` in the child, the limit statuses of the executor. */
function pythonErrorTypes(): Set<string> {
  const child = fs.readFileSync(path.join(SANDBOX_DIR, 'child.py'), 'utf8');
  const executor = fs.readFileSync(path.join(SANDBOX_DIR, 'executor.py'), 'utf8');
  const found = new Set<string>();
  for (const m of child.matchAll(/_error\("([A-Za-z]+)"/g)) found.add(m[1]!);
  for (const m of child.matchAll(/"type":"([A-Za-z]+)"/g)) found.add(m[1]!);
  // The executor's end statuses that the TypeScript side turns into errors of the same name (platform/sandbox/batch.ts).
  for (const m of executor.matchAll(/killed = "([A-Za-z]+)"/g)) if (m[1] !== 'Broken') found.add(m[1]!);
  return found;
}

describe('sandbox error types', () => {
  it('are the same set on the Python side and in the enum', () => {
    const py = pythonErrorTypes();
    expect(py.size).toBeGreaterThan(4); // the scan found the literals at all
    // SandboxError is also made by the TypeScript side alone (a killed call); the child writes it too.
    expect([...py].sort()).toEqual([...SANDBOX_ERROR_TYPES].sort());
  });

  it('are told apart by exact name, never by pattern', () => {
    expect(SANDBOX_ERROR_TYPES.every(isSandboxErrorType)).toBe(true);
    for (const own of ['TimeoutError', 'RateLimit', 'ValueError', 'timeout']) {
      expect(isSandboxErrorType(own)).toBe(false);
      expect(isLimit(own)).toBe(false);
      expect(isTimeout(own)).toBe(false);
    }
    expect(SANDBOX_ERROR_TYPES.filter(isLimit).sort()).toEqual(['MemoryLimit', 'OutputLimit', 'ResultLimit', 'Timeout']);
    expect(SANDBOX_ERROR_TYPES.filter(isNotRun).sort()).toEqual(['BadArguments', 'EntryNotFound', 'SandboxError']);
    expect(SANDBOX_ERROR_TYPES.filter(isSandboxFault)).toEqual([SANDBOX_ERROR.sandboxError]);
    expect(SANDBOX_ERROR_TYPES.filter(isTimeout)).toEqual([SANDBOX_ERROR.timeout]);
  });

  it("count a method's own TimeoutError as evidence and the sandbox's Timeout as none", () => {
    const err = (type: string) => ({ ok: false as const, error: { type, message: 'm' }, stdout: '', ms: 1 });
    expect(isEvidence(err('TimeoutError'))).toBe(true);
    expect(isEvidence(err(SANDBOX_ERROR.timeout))).toBe(false);
    expect(isEvidence(err(SANDBOX_ERROR.resultLimit))).toBe(false);
    expect(isEvidence(err(SANDBOX_ERROR.sandboxError))).toBe(false);
    expect(observationCategory(err('TimeoutError'))).toBe('exception');
    expect(observationCategory(err(SANDBOX_ERROR.timeout))).toBe('timeout');
    expect(observationCategory(err(SANDBOX_ERROR.memoryLimit))).toBe('limit');
    expect(observationCategory(err(SANDBOX_ERROR.sandboxError))).toBe('sandbox_error');
    expect(observationCategory(err(SANDBOX_ERROR.badArguments))).toBe('bad_arguments');
  });
});

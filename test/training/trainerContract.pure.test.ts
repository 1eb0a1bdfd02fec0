// The golden trainer contract (trainer/contract/): the TypeScript reader accepts and refuses exactly the specs
// and events the trainer's parser does (trainer/tests/test_contract.py runs the same files).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  TRAINER_COMMANDS,
  TRAINER_EXIT,
  errorEventSchema,
  startEventSchema,
  trainerEventSchema,
  trainerSpecFileSchemas,
  type TrainerCommand,
} from '../../domain/training/trainerProtocol';

const CONTRACT = path.join(import.meta.dirname, '../../trainer/contract');
const load = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(CONTRACT, name), 'utf8')) as T;

interface SpecCase {
  name: string;
  command: TrainerCommand;
  spec: unknown;
  field?: string;
}
interface EventCase {
  name: string;
  event: unknown;
  field: string;
}

/** The fields an error names: each issue's path, and for unknown keys the path plus the key. */
function namedFields(error: z.ZodError): string[] {
  return error.issues.flatMap((i) => {
    const at = i.path.map(String);
    return i.code === 'unrecognized_keys' ? i.keys.map((k) => [...at, k].join('.')) : [at.join('.')];
  });
}

describe('trainer specs', () => {
  for (const c of load<SpecCase[]>('specs.valid.json'))
    it(`accepts ${c.name}`, () => {
      const r = trainerSpecFileSchemas[c.command].safeParse(c.spec);
      expect(r.error?.issues ?? []).toEqual([]);
    });
  for (const c of load<SpecCase[]>('specs.invalid.json'))
    it(`refuses ${c.name}, naming ${c.field || 'the spec'}`, () => {
      const r = trainerSpecFileSchemas[c.command].safeParse(c.spec);
      expect(r.success).toBe(false);
      expect(namedFields(r.error!)).toContain(c.field);
    });
});

describe('trainer events', () => {
  const valid = load<{ type: string }[]>('events.valid.json');
  for (const e of valid)
    it(`accepts a ${e.type} event`, () => {
      expect(trainerEventSchema.safeParse(e).error?.issues ?? []).toEqual([]);
    });
  it('covers every event type', () => {
    expect(new Set(valid.map((e) => e.type))).toEqual(new Set(trainerEventSchema.options.map((o) => o.shape.type.value)));
  });
  for (const c of load<EventCase[]>('events.invalid.json'))
    it(`refuses ${c.name}, naming ${c.field}`, () => {
      const r = trainerEventSchema.safeParse(c.event);
      expect(r.success).toBe(false);
      expect(namedFields(r.error!)).toContain(c.field);
    });
});

describe('codes', () => {
  const codes = load<{ protocol: number; commands: string[]; exit: Record<string, number>; error_exit: Record<string, number> }>('codes.json');
  it('protocol version and commands', () => {
    expect(startEventSchema.shape.protocol.value).toBe(codes.protocol);
    expect([...TRAINER_COMMANDS]).toEqual(codes.commands);
  });
  it('exit codes (TRAINER_EXIT is camelCase of the same names)', () => {
    const camel = (s: string) => s.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
    expect(Object.fromEntries(Object.entries(codes.exit).map(([k, v]) => [camel(k), v]))).toEqual(TRAINER_EXIT);
  });
  it('error codes', () => {
    expect([...errorEventSchema.shape.code.options].sort()).toEqual(Object.keys(codes.error_exit).sort());
  });
});

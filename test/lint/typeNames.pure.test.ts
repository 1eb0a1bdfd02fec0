// The one-name-per-type check of `npm run lint` (harness/lint/typeNames.ts): a plain alias and one shape under two
// names or twice under one name are found, with where they are; generics, extensions and short shapes are not.
import { describe, expect, it } from 'vitest';
import { typeNameFindings } from '../../harness/lint/typeNames';

describe('typeNameFindings', () => {
  it('finds a second name for a type: a plain alias, and the same object shape declared under two names', () => {
    const findings = typeNameFindings([
      { path: 'domain/a.ts', text: 'export interface Plan { methodId: string; excluded?: string; inputs: string[] }\nexport type Ready = ReadyRecord;' },
      { path: 'activities/b.ts', text: 'type Step = { inputs: string[]; excluded?: string; methodId: string };\ntype Event = temporal.api.IEvent;' },
    ]);
    expect(findings.map((f) => [f.kind, f.declarations])).toEqual([
      ['alias', ['Ready@domain/a.ts']],
      ['alias', ['Event@activities/b.ts']],
      ['same-shape', ['Plan@domain/a.ts', 'Step@activities/b.ts']],
    ]);
    expect(findings[0]?.detail).toBe('type Ready = ReadyRecord: use ReadyRecord');
  });

  it('finds one name declared twice with the same shape, in two files', () => {
    const twice = "export interface PyValue { kind: 'int' | 'str'; repr: string; value: unknown }";
    const findings = typeNameFindings([
      { path: 'domain/sandbox/value.ts', text: twice },
      { path: 'domain/inputs/pyLiteral.ts', text: twice },
    ]);
    expect(findings.map((f) => [f.kind, f.declarations])).toEqual([['same-shape', ['PyValue@domain/sandbox/value.ts', 'PyValue@domain/inputs/pyLiteral.ts']]]);
  });

  it('passes generics, extensions, short shapes and one-off unions', () => {
    const findings = typeNameFindings([
      {
        path: 'domain/a.ts',
        text: [
          'export type Page<T> = Paged<T>;',
          'export interface Row extends Base { methodId: string; inputs: string[] }',
          "export type Kind = 'a' | 'b';",
          'export type Maybe = string | null;',
          'export type Outcome = { ok: true; value: string } | { ok: false; error: string };',
        ].join('\n'),
      },
      { path: 'domain/b.ts', text: "export type Kind2 = 'a' | 'b';\nexport interface Row2 extends Base { methodId: string; inputs: string[] }" },
    ]);
    expect(findings).toEqual([]);
  });
});

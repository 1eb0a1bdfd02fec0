// A Python value in TypeScript: the one model for what the sandbox returns (decoded from its wire
// encoding, ./codec.ts) and for the literal argument texts the generators read and write (./literal.ts,
// ./print.ts). Pure code, no I/O.

export type PyValue =
  | { kind: 'none' }
  | { kind: 'bool'; value: boolean }
  /** Any size, as Python's int. */
  | { kind: 'int'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'complex'; re: number; im: number }
  | { kind: 'str'; value: string }
  | { kind: 'bytes' | 'bytearray'; value: Uint8Array }
  | { kind: 'list' | 'tuple' | 'set' | 'frozenset'; items: PyValue[] }
  /** Entries in insertion order, as Python keeps them. */
  | { kind: 'dict'; entries: [PyValue, PyValue][] }
  /** A value with no literal form (an object, a function): its type name and its repr. */
  | { kind: 'other'; type: string; repr: string };

/** A call's arguments: positional values, then keyword arguments in their written order. */
export interface PyArgs {
  args: PyValue[];
  kwargs: [string, PyValue][];
}

/** Bytes from a string of char codes 0-255 (`'Hello'` -> b'Hello'). */
export function bytesOf(latin1: string): Uint8Array {
  return Uint8Array.from(latin1, (c) => c.charCodeAt(0) & 0xff);
}

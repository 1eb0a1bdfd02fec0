import { describe, expect, it } from 'vitest';
import { heldoutSet } from '../../domain/judge/codeMatch';
import { mutateInputs, mutateLiteral } from '../../domain/inputs/mutation';
import { tokenize } from '../../domain/python/literal';
import { seededRandom } from '../../domain/common/seededRandom';

const shape = (s: string) =>
  tokenize(s)
    .map((t) =>
      t.kind === 'num' ? (/[.eE]/.test(t.text) ? 'F' : 'I') : t.kind === 'str' ? 'S' : t.kind === 'name' && /^(True|False)$/.test(t.text) ? 'B' : t.text,
    )
    .join('');

describe('held-out input generation', () => {
  it('keeps the shape of the input: brackets, commas, keywords and literal kinds', () => {
    const rand = seededRandom(3);
    for (const input of ["[3, 1, 2], key='abc'", "{'a': 1.5, 'b': [True, None]}", '(1, 2), "Hello World"', '1e3, 0.25', "'it''s'"]) {
      for (let i = 0; i < 20; i++) {
        const out = mutateLiteral(input, rand);
        expect(shape(out)).toBe(shape(input));
        expect(out).toContain(input.includes('key=') ? 'key=' : '');
      }
    }
  });

  it('is deterministic, distinct from the known inputs and from each other, and respects the count', () => {
    const known = ['[1, 2, 3]', '[5, 0, 7]', "'hello', 2"];
    const a = mutateInputs(known, 12, 'humaneval/1', 1);
    expect(a).toEqual(mutateInputs(known, 12, 'humaneval/1', 1));
    expect(a).toHaveLength(12);
    expect(new Set(a).size).toBe(12);
    for (const x of a) expect(known).not.toContain(x);
    expect(mutateInputs(known, 12, 'humaneval/2', 1)).not.toEqual(a); // another method, another sample
  });

  it('gives up gracefully when there is nothing to vary', () => {
    expect(mutateInputs(['None', '[]'], 5, 'm', 1)).toEqual([]);
    expect(mutateInputs([], 5, 'm', 1)).toEqual([]);
    expect(mutateInputs(['1'], 0, 'm', 1)).toEqual([]);
  });

  it('the held-out set keeps the given held-out inputs and adds the generated ones', () => {
    const set = heldoutSet({ id: 'mbpp/3', probeInputs: ['2, 3'], heldoutInputs: ['10, 4'] }, { generated: 5 });
    expect(set.given).toEqual(['10, 4']);
    expect(set.generated).toHaveLength(5);
    for (const g of set.generated) expect(shape(g)).toBe('I, I');
  });
});

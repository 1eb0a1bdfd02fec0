// MBR-exec (domain/judge/mbrExec.ts): of k programs from one description, the one whose outcomes on the
// held-out inputs the others share most is kept; the greedy program wins ties; a program without outcomes
// (no code, a compile error) is kept only when none has any. Pure.
import { describe, expect, it } from 'vitest';
import { chooseByAgreement, coderSamplesOf, MAX_CODER_SAMPLES, sampleCallKey } from '../../domain/judge/mbrExec';
import { sampleParams } from '../../domain/llm/requestParams';
import type { Outcome } from '../../domain/sandbox/schemas';

const int = (n: number): Outcome => ({ ok: true, value: n });
const raises = (type: string): Outcome => ({ ok: false, error: { type, message: 'x' } }) as Outcome;

describe('chooseByAgreement', () => {
  it('keeps the program the others agree with, not the greedy one, when the greedy one is the odd one out', () => {
    const greedy = [int(1), int(2), int(3)];
    const a = [int(1), int(4), int(9)];
    const b = [int(1), int(4), int(9)];
    const c = [int(1), int(4), int(8)];
    const r = chooseByAgreement([greedy, a, b, c], {});
    // greedy: agrees with each other on input 0 only (3); a: b on 3 inputs + c on 2 + greedy on 1 = 6.
    expect(r.agreement).toEqual([3, 6, 6, 5]);
    expect(r.chosen).toBe(1);
  });

  it('breaks ties toward the lower index, so k programs that all differ keep the greedy one', () => {
    const r = chooseByAgreement([[int(1)], [int(2)], [int(3)]], {});
    expect(r.agreement).toEqual([0, 0, 0]);
    expect(r.chosen).toBe(0);
  });

  it('counts equal exceptions as agreement and uses the equality options (int is not float unless asked)', () => {
    const e = [raises('ValueError'), int(2)];
    const f = [raises('ValueError'), { ok: true, value: { float: 2 } } as Outcome];
    expect(chooseByAgreement([e, f], {}).agreement).toEqual([1, 1]);
    expect(chooseByAgreement([e, f], { intEqualsFloat: true }).agreement).toEqual([2, 2]);
  });

  it('never keeps a program without outcomes while another has some, and keeps program 0 when none has', () => {
    expect(chooseByAgreement([null, [int(1)], [int(2)]], {})).toEqual({ chosen: 1, agreement: [null, 0, 0] });
    expect(chooseByAgreement([null, null], {})).toEqual({ chosen: 0, agreement: [null, null] });
  });

  it('compares only inputs both programs answered (a missing outcome is no agreement)', () => {
    const r = chooseByAgreement(
      [
        [int(1), undefined],
        [int(1), int(2)],
        [int(5), int(2)],
      ],
      {},
    );
    expect(r.agreement).toEqual([1, 2, 1]);
    expect(r.chosen).toBe(1);
  });
});

describe("a description's programs", () => {
  it('program 0 keeps the call key and params a single program always had; the others get a seed and the sampling temperature', () => {
    expect(sampleCallKey('card-code/m/coder/gold', 0)).toBe('card-code/m/coder/gold');
    expect(sampleCallKey('card-code/m/coder/gold', 2)).toBe('card-code/m/coder/gold/s2');
    expect(sampleParams({ temperature: 0, max_tokens: 384 }, 2, 0.8)).toEqual({ temperature: 0.8, max_tokens: 384, seed: 2 });
    // An endpoint that sets no temperature (a reasoning model) samples by default: none is added.
    expect(sampleParams({ max_completion_tokens: 100 }, 1, 0.8)).toEqual({ max_completion_tokens: 100, seed: 1 });
  });

  it('accepts 1..MAX_CODER_SAMPLES programs and names anything else', () => {
    expect(coderSamplesOf(undefined)).toBe(1);
    expect(coderSamplesOf(3)).toBe(3);
    expect(() => coderSamplesOf(0)).toThrow(/from 1 to 9, got 0/);
    expect(() => coderSamplesOf(MAX_CODER_SAMPLES + 1)).toThrow(RangeError);
    expect(() => coderSamplesOf(2.5)).toThrow(RangeError);
  });
});

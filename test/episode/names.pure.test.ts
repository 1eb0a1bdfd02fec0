import { describe, expect, it } from 'vitest';
import { methodView, runNameSetting, shownObservation, underRealName } from '../../domain/episode/names';
import { storedObservation } from '../../domain/episode/observation';
import { turnPromptRows } from '../../domain/episode/turnPrompt';
import { nameFloor, viewWithNameFloor } from '../../domain/report/nameFloor';
import { NO_JUDGE_VIEW } from '../../domain/report/judgeCardView';
import type { GroupSummary } from '../../domain/report/summarize';
import type { CallResult } from '../../domain/sandbox/schemas';
import type { CallOutcome } from '../../domain/episode/types';

const method = { entryPoint: 'area_of_circle', signature: 'def area_of_circle(radius: float) -> float:' };

describe('the name setting', () => {
  it('original shows the method as stored; anonymised renames the def to `f` and keeps the arguments', () => {
    expect(methodView(method, undefined)).toEqual(method);
    expect(methodView(method, 'original')).toEqual(method);
    expect(methodView(method, 'anonymised')).toEqual({ entryPoint: 'f', signature: 'def f(radius: float) -> float:' });
    // Only the def's name: a name that also appears in a default or an annotation is left there.
    expect(methodView({ entryPoint: 'sep', signature: "async def sep(s, sep=',', sep_count=1):" }, 'anonymised').signature).toBe(
      "async def f(s, sep=',', sep_count=1):",
    );
    // A name with regex characters is matched literally.
    expect(methodView({ entryPoint: 'a_b', signature: 'def a_b(x):' }, 'anonymised').signature).toBe('def f(x):');
  });

  it("rewrites the name in an error's text only, where Python writes it (`name(`); a returned value is never changed", () => {
    const err = "TypeError: area_of_circle() missing 1 required positional argument: 'radius'";
    expect(shownObservation(err, false, 'area_of_circle', 'anonymised')).toBe("TypeError: f() missing 1 required positional argument: 'radius'");
    expect(shownObservation(err, false, 'area_of_circle', 'original')).toBe(err);
    expect(shownObservation("'area_of_circle()'", true, 'area_of_circle', 'anonymised')).toBe("'area_of_circle()'");
    // A longer name that ends with the entry point is another name.
    expect(shownObservation('NameError: my_area_of_circle(', false, 'area_of_circle', 'anonymised')).toBe('NameError: my_area_of_circle(');
  });

  it('the stored observation keeps the sandbox result and stores the text as the agent reads it', () => {
    const r: CallResult = {
      ok: false,
      error: { type: 'TypeError', message: 'area_of_circle() takes 1 positional argument but 2 were given' },
      stdout: '',
      ms: 1,
    };
    const o = storedObservation(r, (t, ok) => shownObservation(t, ok, 'area_of_circle', 'anonymised'));
    expect(o.text).toBe('TypeError: f() takes 1 positional argument but 2 were given');
    expect(o.result).toBe(r);
    expect(o.category).toBe('wrong_arity');
  });

  it('in-context examples and their lines read `f` under the anonymised view', () => {
    const view = methodView(method, 'anonymised');
    const examples: CallOutcome[] = [
      { stepIdx: 1, arguments: '1.0', result: { ok: true, value: 3.5, repr: '3.5', stdout: '', ms: 1 } },
      {
        stepIdx: 2,
        arguments: '1, 2',
        result: { ok: false, error: { type: 'TypeError', message: 'area_of_circle() takes 1 positional argument but 2 were given' }, stdout: '', ms: 1 },
      },
    ];
    const { rows } = turnPromptRows({ idx: 3, examples, signature: view.signature, entryPoint: view.entryPoint, mode: 'answer' }, [], {
      protocol: 'native',
      reserved: new Map(),
      shown: (t, ok) => shownObservation(t, ok, method.entryPoint, 'anonymised'),
    });
    const prompt = String(rows.find((r) => r.kind === 'user')?.agentMessage?.content);
    expect(prompt).toContain('def f(radius: float) -> float:');
    expect(prompt).toContain('f(1.0) -> 3.5');
    expect(prompt).toContain('f(1, 2) raises TypeError: f() takes 1 positional argument');
    expect(prompt).not.toContain('area_of_circle');
  });

  it("a code writer's `def f` is callable under the real name; one that wrote the real name needs no alias", () => {
    expect(underRealName('def f(r):\n    return 3.14 * r * r', 'area_of_circle', 'anonymised')).toBe(
      'def f(r):\n    return 3.14 * r * r\n\narea_of_circle = f\n',
    );
    const named = 'import math\n\ndef area_of_circle(r):\n    return math.pi * r * r';
    expect(underRealName(named, 'area_of_circle', 'anonymised')).toBe(named);
    expect(underRealName('def f(r): pass', 'area_of_circle', 'original')).toBe('def f(r): pass');
  });

  it("a run's setting is read from its stored config: only `anonymised` is anonymised", () => {
    expect(runNameSetting({ names: 'anonymised' })).toBe('anonymised');
    expect(runNameSetting({ names: 'original' })).toBe('original');
    expect(runNameSetting({})).toBe('original');
    expect(runNameSetting(null)).toBe('original');
    expect(runNameSetting({ names: 'ANONYMISED' })).toBe('original');
  });
});

describe("the report's name-only floor", () => {
  const view = { ...NO_JUDGE_VIEW, judged: true, scores: true, codeMatch: true, emptyFloor: 0.41 };
  const group = (model: string, mean: number | null, judged = 6) =>
    ({ model, setting: 'interactive', judged, judgedOnly: { codeMatchUnobserved: { mean } } }) as unknown as GroupSummary;

  it("original names: the judge card's empty rung", () => {
    const f = nameFloor({}, view, [group('mock-null', 0.05)]);
    expect(f).toMatchObject({ names: 'original', value: 0.41 });
    expect(viewWithNameFloor(view, f).emptyFloor).toBe(0.41);
  });

  it("anonymised: the run's own mock-null anchor, never the card's (written from the real name)", () => {
    const f = nameFloor({ names: 'anonymised' }, view, [group('mock-oracle', 1), group('mock-null', 0.05)]);
    expect(f).toMatchObject({ names: 'anonymised', value: 0.05 });
    expect(f.label).toContain('mock-null anchor, 6 judged');
    const none = nameFloor({ names: 'anonymised' }, view, [group('mock-oracle', 1)]);
    expect(none.value).toBeNull();
    expect(none.label).toMatch(/no floor, as the run has no judged mock-null anchor/);
    expect(viewWithNameFloor(view, none).emptyFloor).toBeNull();
  });
});

// Self-judging (issue 27, item 4): the relation of a grading model to an agent, the refusal, and the
// automatic judge choice, which never picks an agent of the run, its base or a checkpoint of either.
// Pure apart from a temporary models directory (fake installed files: chooseJudge reads what is installed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadEnv } from '../../config/env';
import { type SelfJudgeRelation, selfJudgePairs, selfJudgeRefusal, selfJudgeRelation } from '../../domain/judge/selfJudge';
import { catalogueEntry } from '../../domain/llm/localModels';
import { checkSelfJudge, chooseJudge } from '../../scripts/client/judgeChoice';
import { UsageError } from '../../scripts/lib/args';

const Q05 = 'local/qwen2.5-coder-0.5b';
const Q15 = 'local/qwen2.5-coder-1.5b';
const SMOL = 'local/smollm2-135m';
// ckpt:a and ckpt:a2 were trained from the 0.5B (a2 from a, in a later epoch), ckpt:b from the 1.5B.
const BASES = new Map([
  ['ckpt:a', Q05],
  ['ckpt:a2', Q05],
  ['ckpt:b', Q15],
]);
const baseOf = (n: string) => BASES.get(n);

describe('selfJudgeRelation', () => {
  const cases: [string, string, SelfJudgeRelation | null][] = [
    [Q05, Q05, 'same'],
    ['ckpt:a', 'ckpt:a', 'same'],
    ['ckpt:a', Q05, 'base'], // the agent's base judges it
    [Q05, 'ckpt:a', 'checkpoint'], // a checkpoint of the agent judges it
    ['ckpt:a', 'ckpt:a2', 'checkpoint'], // a checkpoint of the agent's base
    ['ckpt:a', Q15, null],
    [Q15, 'ckpt:a', null],
    ['ckpt:a', 'ckpt:b', null],
    [Q05, Q15, null],
    ['ckpt:unknown', Q05, null], // no recorded base: related by name only
  ];
  for (const [agent, grader, want] of cases) it(`${grader} grading ${agent}: ${want}`, () => expect(selfJudgeRelation(agent, grader, baseOf)).toBe(want));

  it('lists every related pair with its role, and the refusal names both models, the relation and the flag', () => {
    const pairs = selfJudgePairs(
      ['ckpt:a', Q15],
      [
        { model: Q05, role: 'judge' },
        { model: Q15, role: 'critic' },
      ],
      baseOf,
    );
    expect(pairs).toEqual([
      { agent: 'ckpt:a', judge: Q05, role: 'judge', relation: 'base' },
      { agent: Q15, judge: Q15, role: 'critic', relation: 'same' },
    ]);
    const msg = selfJudgeRefusal(pairs, '--judge-model M');
    for (const s of ['ckpt:a', Q05, 'relation base', "agent's base model", Q15, 'relation same', '--allow-self-judge', '--judge-model M'])
      expect(msg).toContain(s);
  });
});

describe('checkSelfJudge (the CLI rule)', () => {
  it('refuses a related judge with a usage error (exit 2), returns the pairs when forced, exempts the scripted grader', () => {
    const opts = { allow: false, bases: BASES, otherFlags: '--judge-model M' };
    expect(() => checkSelfJudge(['ckpt:a'], [{ model: Q05, role: 'judge' }], opts)).toThrow(UsageError);
    expect(() => checkSelfJudge(['ckpt:a'], [{ model: Q05, role: 'judge' }], opts)).toThrow(/self-judging refused: local\/qwen2\.5-coder-0\.5b \(judge\)/);
    expect(checkSelfJudge(['ckpt:a'], [{ model: Q05, role: 'judge' }], { ...opts, allow: true })).toEqual([
      { agent: 'ckpt:a', judge: Q05, role: 'judge', relation: 'base' },
    ]);
    expect(checkSelfJudge(['mock-oracle'], [{ model: 'mock-oracle', role: 'judge' }], opts)).toEqual([]);
    expect(
      checkSelfJudge(
        [Q05],
        [
          { model: Q15, role: 'judge' },
          { model: undefined, role: 'coder' },
        ],
        opts,
      ),
    ).toEqual([]);
  });
});

describe('chooseJudge never picks an agent, its base or a checkpoint of either', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-judge-choice-'));
  const saved = { dir: process.env.PAU_MODELS_DIR, judge: process.env.PAU_JUDGE_MODEL };
  /** Fake installed files (sparse, with the installer's sidecar): what installedModels() accepts. */
  function install(shorts: string[]): void {
    for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f));
    for (const short of shorts) {
      const e = catalogueEntry(short)!;
      const file = path.join(dir, `${short}.gguf`);
      fs.writeFileSync(file, '');
      fs.truncateSync(file, e.bytes);
      const st = fs.statSync(file);
      fs.writeFileSync(`${file}.verified.json`, JSON.stringify({ sha256: e.sha256, bytes: st.size, mtimeMs: st.mtimeMs }));
    }
  }
  beforeAll(() => {
    process.env.PAU_MODELS_DIR = dir;
    delete process.env.PAU_JUDGE_MODEL;
    reloadEnv();
  });
  afterAll(() => {
    if (saved.dir === undefined) delete process.env.PAU_MODELS_DIR;
    else process.env.PAU_MODELS_DIR = saved.dir;
    if (saved.judge !== undefined) process.env.PAU_JUDGE_MODEL = saved.judge;
    reloadEnv();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the 0.5B agent with only the 0.5B installed: no judge, and the note says what to install', () => {
    install(['smollm2-135m', 'qwen2.5-coder-0.5b']);
    const c = chooseJudge([Q05, 'mock-oracle', 'mock-random']);
    expect(c.judgeModel).toBeNull(); // before issue 27: the 0.5B, judging itself
    expect(c.note).toContain('npm run pau -- models install qwen2.5-coder-1.5b');
    expect(c.note).toContain('does not judge itself');
  });
  it('picks the strongest installed model that is unrelated', () => {
    install(['qwen2.5-coder-0.5b', 'qwen2.5-coder-1.5b']);
    expect(chooseJudge([Q05]).judgeModel).toBe(Q15);
    expect(chooseJudge([Q15]).judgeModel).toBe(Q05);
    expect(chooseJudge(['ckpt:b'], undefined, BASES).judgeModel).toBe(Q05); // not the checkpoint's base
    expect(chooseJudge([Q05, Q15]).judgeModel).toBeNull();
    install(['qwen2.5-coder-1.5b']);
    const c = chooseJudge([Q15]);
    expect(c.judgeModel).toBeNull();
    expect(c.note).toContain('models install qwen2.5-coder-0.5b');
  });
  it('over every installed set and local agent set, the choice is never related to an agent', () => {
    const shorts = ['smollm2-135m', 'qwen2.5-coder-0.5b', 'qwen2.5-coder-1.5b'];
    const agentsPool = [SMOL, Q05, Q15, 'ckpt:a', 'ckpt:b', 'mock-oracle'];
    let judged = 0;
    for (let inst = 0; inst < 8; inst++) {
      install(shorts.filter((_, i) => inst & (1 << i)));
      for (let pick = 1; pick < 1 << agentsPool.length; pick++) {
        const agents = agentsPool.filter((_, i) => pick & (1 << i));
        const { judgeModel } = chooseJudge(agents, undefined, BASES);
        if (judgeModel === null || judgeModel === 'mock-oracle') continue;
        judged++;
        for (const a of agents) expect(selfJudgeRelation(a, judgeModel, baseOf), `${judgeModel} for ${agents.join(',')}`).toBeNull();
      }
    }
    expect(judged).toBeGreaterThan(20);
  });
});

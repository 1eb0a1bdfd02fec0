import { describe, expect, it } from 'vitest';
import { buildCoderMessages, extractCode } from '../../domain/judge/coderPrompt';
import { parseScore, rationale } from '../../domain/judge/formats/rationale';
import { SCRIPTED_MARK, scriptedJudgeOrCoderReply, scriptedRole } from '../../domain/judge/scriptedJudge';

const method = { id: 'm/1', entryPoint: 'add_one', goldDescription: 'Returns the number plus one.', code: 'def add_one(x):\n    return x + 1\n' };
const judge = (agent: string, gold: string | null = method.goldDescription) =>
  rationale.messages({ signature: 'def add_one(x):', code: method.code, goldDescription: gold, agentDescription: agent });

describe('scripted judge and code writer', () => {
  it('recognises its roles by system prompt only', () => {
    expect(scriptedRole(judge('x'))).toBe('judge');
    expect(scriptedRole(buildCoderMessages({ signature: 'def f():', entryPoint: 'f', description: 'x' }))).toBe('coder');
    expect(scriptedRole([{ role: 'system', content: 'You are an agent.' }])).toBeUndefined();
    expect(scriptedJudgeOrCoderReply('oracle', [{ role: 'system', content: 'agent' }])).toBeUndefined();
    expect(scriptedJudgeOrCoderReply('refuse', judge('x'))).toBeUndefined();
  });

  it('oracle judge: the gold scores 5, "I do not know" scores 1, and it says it is scripted', () => {
    const r = scriptedJudgeOrCoderReply('oracle', judge(`${SCRIPTED_MARK} Returns the number plus one.`), method)!;
    expect(r.content.startsWith(SCRIPTED_MARK)).toBe(true);
    expect(parseScore(r.content)).toBe(5);
    expect(parseScore(scriptedJudgeOrCoderReply('oracle', judge(`${SCRIPTED_MARK} I do not know what this method does.`))!.content)).toBe(1);
    expect(parseScore(scriptedJudgeOrCoderReply('oracle', judge('Something about strings and sorting.'))!.content)).toBe(1);
  });

  it('null judge gives no score; random judge gives a valid one', () => {
    expect(parseScore(scriptedJudgeOrCoderReply('null', judge('x'))!.content)).toBeNull();
    const s = parseScore(scriptedJudgeOrCoderReply('random', judge('x'))!.content);
    expect(s).toBeGreaterThanOrEqual(1);
    expect(s).toBeLessThanOrEqual(5);
  });

  it('oracle coder writes the original from the gold description, None-returning code otherwise', () => {
    const coder = (d: string) => buildCoderMessages({ signature: 'def add_one(x):', entryPoint: 'add_one', description: d });
    expect(extractCode(scriptedJudgeOrCoderReply('oracle', coder(`${SCRIPTED_MARK} Returns the number plus one.`), method)!.content, 'add_one')).toBe(
      method.code,
    );
    expect(extractCode(scriptedJudgeOrCoderReply('oracle', coder('I do not know.'), method)!.content, 'add_one')).toContain('return None');
    expect(extractCode(scriptedJudgeOrCoderReply('null', coder('Returns the number plus one.'), method)!.content, 'add_one')).toContain('return None');
  });

  it('code-only methods (no gold): quoting the code scores 5 and lets the oracle coder write the original', () => {
    const noGold = { ...method, goldDescription: null };
    const quoted = `${SCRIPTED_MARK} It behaves exactly like this Python code:\n\`\`\`python\n${method.code}\`\`\``;
    expect(parseScore(scriptedJudgeOrCoderReply('oracle', judge(quoted, null), noGold)!.content)).toBe(5);
    expect(parseScore(scriptedJudgeOrCoderReply('oracle', judge(`${SCRIPTED_MARK} Adds things.`, null), noGold)!.content)).toBe(3);
    const coder = scriptedJudgeOrCoderReply(
      'oracle',
      buildCoderMessages({ signature: 'def add_one(x):', entryPoint: 'add_one', description: quoted }),
      noGold,
    )!;
    expect(extractCode(coder.content, 'add_one')).toContain('return x + 1');
  });
});

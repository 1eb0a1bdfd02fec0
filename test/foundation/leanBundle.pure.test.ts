// The workflow bundle as workers keep it (platform/build/leanBundle.ts): the same program in one-byte text, and a
// source map that still maps but no longer carries every source file.
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { asciiOnly, leanBundleCode } from '../../platform/build/leanBundle';

const run = (code: string): unknown => vm.runInNewContext(code);
const inlineMap = (map: object) => `//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;

describe('asciiOnly', () => {
  it('writes every non-ASCII character as an escape and the program computes the same values', () => {
    const cases = [
      `'a — b ≤ c × d'`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the case is a template literal's source text
      '`tpl ${1 + 1} → ø`',
      `/[—–]/.test('x–y')`,
      `'smile 😀'.length`,
      // an identity escape (\\— is —) and an escaped backslash before the character
      `['\\—', '\\\\—']`,
      `({ 'ключ': 'значение' })['ключ']`,
    ];
    for (const c of cases) {
      const out = asciiOnly(c);
      expect(out, c).toMatch(/^[^\u0080-\uffff]*$/);
      expect(run(out), c).toEqual(run(c));
    }
  });

  it('leaves ASCII text as it is', () => {
    const text = "const a = 'plain' + `x` + /y\\u2014/.source; // comment";
    expect(asciiOnly(text)).toBe(text);
  });
});

describe('leanBundleCode', () => {
  const map = { version: 3, file: 'bundle.js', sources: ['a.ts'], names: [], mappings: 'AAAA', sourcesContent: ['const a = "—";'] };
  const bundle = `var x = '—';\n${inlineMap(map)}`;

  it('drops sourcesContent, keeps the mappings, and makes the code ASCII', () => {
    const out = leanBundleCode(bundle);
    expect(out).toMatch(/^[^\u0080-\uffff]*$/);
    const [code, encoded] = out.split('//# sourceMappingURL=data:application/json;charset=utf-8;base64,');
    expect(run(`${code}; x`)).toBe('—');
    const lean = JSON.parse(Buffer.from(encoded ?? '', 'base64').toString('utf8'));
    expect(lean).toEqual({ version: 3, file: 'bundle.js', sources: ['a.ts'], names: [], mappings: 'AAAA' });
  });

  it('refuses a map that is not a source map rather than writing a broken bundle', () => {
    expect(() => leanBundleCode(`var x;\n${inlineMap({ hello: 1 })}`)).toThrow(/mappings|version/);
  });

  it('leaves a bundle without an inline map for the worker to refuse, its code made ASCII', () => {
    expect(leanBundleCode("var x = '×';")).toBe("var x = '\\u00d7';");
  });
});

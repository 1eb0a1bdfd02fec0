// Every verb's `--help` (scripts/options/<verb>.ts through helpText, scripts/lib/options.ts) lists every
// option it parses, each with a line of help: the verb parses only with the tables its options module
// declares, and the help is made from those tables.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOptions, helpText, usageText, type VerbUsage } from '../../scripts/lib/options';

const ROOT = path.resolve(import.meta.dirname, '../..');
const verbs = fs
  .readdirSync(path.join(ROOT, 'scripts/commands'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort();
const source = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

describe('each verb --help', () => {
  it('every verb has its options module, and the dispatcher loads both', () => {
    expect(verbs.length).toBeGreaterThan(15);
    const pau = source('scripts/pau.ts');
    for (const v of verbs) {
      expect(fs.existsSync(path.join(ROOT, `scripts/options/${v}.ts`)), v).toBe(true);
      expect(pau).toContain(`import('./commands/${v}')`);
      expect(pau).toContain(`import('./options/${v}')`);
    }
  });

  it.each(verbs)('pau %s parses only with the tables of its options module', (v) => {
    const text = source(`scripts/commands/${v}.ts`);
    expect(text).not.toMatch(/defineOptions\(/);
    const imported = new Set(
      [...text.matchAll(/import \{([^}]*)\} from '\.\.\/options\/([a-z-]+)'/g)]
        .filter((m) => m[2] === v)
        .flatMap((m) => m[1]!.split(',').map((n) => n.trim().replace(/^type /, ''))),
    );
    for (const m of text.matchAll(/parseCommandArgs\(\s*\w+,\s*(\w+)\s*\)/g)) expect(imported, `${v}: ${m[1]}`).toContain(m[1]);
    expect(text.match(/parseCommandArgs\(/g)?.length ?? 0).toBe([...text.matchAll(/parseCommandArgs\(\s*\w+,\s*(\w+)\s*\)/g)].length);
  });

  it.each(verbs)('pau %s --help lists each option of each table with its help', async (v) => {
    const { verb } = (await import(`../../scripts/options/${v}.ts`)) as { verb: VerbUsage };
    const lines = helpText(verb).split('\n');
    expect(lines[0]).toBe(`usage: ${usageText(verb).split('\n')[0]}`);
    for (const form of verb.forms) {
      for (const e of form.options?.entries ?? []) {
        expect(e.help.trim(), `${v} --${e.name} has no help`).not.toBe('');
        expect(lines).toContain(lines.find((l) => l.trimStart().startsWith(`${e.flag} `) && l.includes(e.help)));
        expect(Object.keys(form.options!.parseArgs)).toContain(e.name);
      }
      expect(form.options?.entries.length ?? 0).toBe(Object.keys(form.options?.parseArgs ?? {}).length);
    }
  });
});

describe('the option list', () => {
  it('shows the placeholder, the enum values and the default; a boolean has none', () => {
    const o = defineOptions({
      split: { schema: z.enum(['train', 'test']).default('test'), help: 'the split' },
      models: { schema: z.string(), arg: 'a,b', help: 'the models' },
      force: { schema: z.boolean().default(false), help: 'again' },
      settings: { schema: z.array(z.string()).default(['x', 'y']), help: 'the settings' },
    });
    expect(o.usage).toBe('[--split train|test] --models a,b [--force] [--settings SETTINGS...]');
    expect(o.entries.map((e) => `${e.flag}: ${e.help}${e.default}`)).toEqual([
      '--split train|test: the split (default test)',
      '--models a,b: the models',
      '--force: again',
      '--settings SETTINGS...: the settings (default x,y)',
    ]);
    const text = helpText({ forms: [{ words: 'pau x run', options: o }, { words: 'pau x list' }], notes: ['run: runs'] });
    expect(text.split('\n')).toEqual([
      'usage: pau x run [--split train|test] --models a,b [--force] [--settings SETTINGS...]',
      '       pau x list',
      '  run: runs',
      '',
      'pau x run options:',
      '  --split train|test      the split (default test)',
      '  --models a,b            the models',
      '  --force                 again',
      '  --settings SETTINGS...  the settings (default x,y)',
    ]);
  });
});

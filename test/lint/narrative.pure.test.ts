// The narrative lint of `npm run lint` (harness/lint/narrative.ts): a line naming a numbered work period is a
// finding, singular or plural, any case, with its line number; a word that only contains the term, a period
// without a number and a binary file are not. The samples are built so this file holds no finding itself.
import { describe, expect, it } from 'vitest';
import { narrativeFindings } from '../../harness/lint/narrative';

const term = ['ses', 'sion'].join('');

describe('narrativeFindings', () => {
  it('finds each line that names a numbered work period, with its line number', () => {
    const text = ['measured on 2 cores', `(${term} 12: 7 s)`, `${term.toUpperCase()}S 11-12 agree`, `see ${term}s 3 and 4`].join('\n');
    expect(narrativeFindings('docs/x.md', text)).toEqual([
      { path: 'docs/x.md', line: 2, text: `(${term} 12: 7 s)` },
      { path: 'docs/x.md', line: 3, text: `${term.toUpperCase()}S 11-12 agree` },
      { path: 'docs/x.md', line: 4, text: `see ${term}s 3 and 4` },
    ]);
  });

  it('passes a term without a number, inside another word, and a binary file', () => {
    expect(narrativeFindings('a.ts', `a login ${term} lasts 30 minutes\nsub${term} 3 of the run\n${term}12`)).toEqual([]);
    expect(narrativeFindings('b.bin', `\0${term} 1`)).toEqual([]);
  });
});

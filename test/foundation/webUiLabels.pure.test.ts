// The docs' Web UI steps name what the UI shows: every label they put in italics after "the UI's", "open the"
// or "leave" is a string of the Web UI that the pinned Temporal CLI serves (its assets are embedded in the
// binary), and no doc, CLI line or comment names a setting the UI no longer has ("Data Encoder", now "Codec Server").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';

/** The Temporal CLI as the stack finds it (platform/stack/temporal.ts): TEMPORAL_CLI_PATH, PATH, then .tools/. */
function temporalBinary(): string {
  const candidates = [
    process.env.TEMPORAL_CLI_PATH,
    ...(process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'temporal')),
    path.join(PROJECT_ROOT, '.tools', 'temporal', 'bin', 'temporal'),
  ];
  const found = candidates.find((c): c is string => !!c && fs.existsSync(c) && fs.statSync(c).isFile());
  if (!found) throw new Error('no Temporal CLI: npm run setup installs it (.tools/temporal)');
  return found;
}

const docs = fs
  .readdirSync(path.join(PROJECT_ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => ({ file: `docs/${f}`, text: fs.readFileSync(path.join(PROJECT_ROOT, 'docs', f), 'utf8').replace(/\s+/g, ' ') }));

/** Italic UI labels in the docs' steps: `the UI's *X*`, `open the *X*`, `leave *X* off`. */
function uiLabels(text: string): string[] {
  const re = /(?:UI's|open the|[Ll]eave) \*([^*]+)\*/g;
  return [...text.matchAll(re)].map((m) => m[1]!);
}

describe("the docs' Web UI steps", () => {
  it('name only labels the bundled Web UI has', () => {
    const bin = temporalBinary();
    const ui = fs.readFileSync(bin);
    const labels = docs.flatMap((d) => uiLabels(d.text).map((label) => ({ file: d.file, label })));
    expect(labels.map((l) => l.label)).toEqual(expect.arrayContaining(['Codec Server', 'Pass the user access token']));
    const missing = labels.filter((l) => !ui.includes(l.label));
    expect(missing, `labels the Web UI in ${bin} does not show`).toEqual([]);
  });

  it('never name the "Data Encoder" the UI now calls "Codec Server"', () => {
    const sources = ['docs', 'scripts', 'platform'].flatMap((dir) =>
      fs
        .readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(md|ts)$/.test(f))
        .map((f) => path.join(dir, f)),
    );
    const naming = sources.filter((f) => fs.readFileSync(path.join(PROJECT_ROOT, f), 'utf8').includes('Data Encoder'));
    expect(naming).toEqual([]);
  });
});

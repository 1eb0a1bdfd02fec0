// The HTML report in a real browser (headless Chromium): two scripted benchmark runs of the same methods,
// the second with a call budget of 1, reported side by side (`pau report --compare A,B`). The report and an
// episode page of each run open without a console error, an uncaught exception or a failed load; every plot
// has marks; every link between the report and the episode pages (both runs') leads to a page that exists
// and links back. The comparison pairs the methods both ran, with intervals and the methods that moved.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportBaseName } from '../../domain/report/transcriptLinks';
import { startBenchmark } from '../../scripts/client/starters';
import { ADD, insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { Browser, type Page } from '../helpers/browser';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const DATASET = 'fixture-browser';
const stamp = Date.now().toString(36);
const A = `browser-a-${stamp}`;
const B = `browser-b-${stamp}`;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-browser-'));

const stack = useStack({ workers: ['pau', 'pau-sandbox'], setup: ({ db }) => insertFixtureMethods(db, DATASET, [ADD, REVERSE, RAISES]) });

let browser: Browser | undefined;
beforeAll(async () => {
  browser = await Browser.launch();
});
afterAll(async () => {
  await browser?.close();
});

interface PlotInfo {
  label: string;
  marks: number;
  noData: number;
}

/** Every SVG plot of the page with its data marks (dots, bars, whiskers) and "no data" labels. */
const plotsOf = (page: Page) =>
  page.evaluate<PlotInfo[]>(`[...document.querySelectorAll('svg')].map((s) => ({
    label: s.getAttribute('aria-label') ?? '',
    marks: s.querySelectorAll('circle, rect').length,
    noData: [...s.querySelectorAll('text')].filter((t) => /no data|no shared methods/.test(t.textContent)).length,
  }))`);

/** The page's links to other local pages, resolved by the browser (absolute file: URLs). */
const localLinks = (page: Page) => page.evaluate<string[]>(`[...document.querySelectorAll('a[href]')].map((a) => a.href).filter((h) => h.startsWith('file:'))`);

async function open(url: string): Promise<Page> {
  const page = await browser!.newPage();
  await page.goto(url);
  expect(page.problems, `problems on ${url}`).toEqual([]);
  return page;
}

describe('the HTML report in headless Chromium', () => {
  it('opens with no console error, non-empty plots, and working links to and from the episode pages of both compared runs', async () => {
    const config = {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle', 'mock-random'],
      settings: ['interactive', 'in-context'] as const,
      samples: 1,
      judgeModel: 'mock-oracle',
    };
    const a = await startBenchmark(stack.client, A, { ...config, settings: [...config.settings] });
    expect((await a.result()).totals.failed).toBe(0);
    const b = await startBenchmark(stack.client, B, { ...config, settings: [...config.settings], budgets: { maxCalls: 1 } });
    expect((await b.result()).totals.failed).toBe(0);

    const r = await runCli(['report', '--compare', `${A},${B}`, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const reportFile = path.join(out, `${reportBaseName(A)}.html`);
    const report = await open(pathToFileURL(reportFile).href);

    // Plots: at least the at-a-glance one and the comparison's, each with marks and none left empty.
    const plots = await plotsOf(report);
    expect(plots.length).toBeGreaterThanOrEqual(2);
    for (const p of plots) {
      expect(p.marks, `plot "${p.label}" has no marks`).toBeGreaterThan(0);
      expect(p.noData, `plot "${p.label}" says it has no data`).toBe(0);
    }
    expect(plots.some((p) => p.label.includes(`this run − ${B}`))).toBe(true);
    await report.screenshot(path.join(out, 'report.png'));

    // The comparison: paired over the 3 methods both ran, and the methods that moved, linked to both runs.
    const text = await report.evaluate<string>('document.body.innerText');
    expect(text).toContain(`Compared with ${B}`);
    expect(text).toMatch(/mock-oracle \/ interactive\tstmt cov\t[-+][\d.]+%( \[[^\]]+\])? \d+\/\d+\/\d+\t3\t0/);
    expect(text).toContain('Methods that moved most');
    const moved = await report.evaluate<string[][]>(
      `[...document.querySelectorAll('.movers tbody tr')].map((tr) => [...tr.querySelectorAll('a')].map((x) => x.href))`,
    );
    expect(moved.length).toBeGreaterThan(0);
    for (const [mine, theirs] of moved) {
      expect(mine).toContain(`/${reportBaseName(A)}.episodes/`);
      expect(theirs).toContain(`/${reportBaseName(B)}.episodes/`);
    }

    // Every local link resolves to a file; the episode pages exist for every episode of run A.
    const links = await localLinks(report);
    const episodeLinks = links.filter((h) => h.includes('.episodes/'));
    expect(episodeLinks.length).toBeGreaterThanOrEqual(12);
    for (const h of links) expect(fs.existsSync(new URL(h)), `broken link ${h}`).toBe(true);

    // One episode page of each run opens cleanly and links back to a report that exists.
    for (const h of [moved[0]![0]!, moved[0]![1]!]) {
      const page = await open(h);
      const back = await localLinks(page);
      expect(back.length).toBeGreaterThan(0);
      for (const l of back) expect(fs.existsSync(new URL(l)), `broken link ${l} on ${h}`).toBe(true);
      expect(await page.evaluate<string>('document.body.innerText')).toContain('Final description');
    }
    const episode = await open(moved[0]![0]!);
    await episode.screenshot(path.join(out, 'episode.png'));
    console.log(`report screenshots: ${out}/report.png, ${out}/episode.png`);
  }, 300_000); // two 8-episode benchmarks on the workers every test file shares, the report and Chromium: 25 s alone, over 180 s beside the full suite and a training bench on 2 cores

  it('refuses a malformed pair and a run compared with itself', async () => {
    const bad = await runCli(['report', '--compare', `${A},`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--compare A,B takes two run ids');
    const self = await runCli(['report', '--compare', `${A},${A}`]);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain(`a run compared with itself (${A})`);
  });
});

// The report's contradiction breakdown: per model x setting, how the judge-model classifier labelled the
// final descriptions (consistent / omits / contradicts an observation the agent itself made), and the
// share of failures (score <= 2) whose description contradicts an observation: the paper's 43.3% figure.
// Beside it, the code-based check (code written from the description disagrees with a value the agent
// saw returned). Pure code.
import { esc } from './html';
import type { EpisodeRow } from './summarize';

export interface ContradictionGroup {
  model: string;
  setting: string;
  judged: number;
  classified: number;
  consistent: number;
  omits: number;
  contradicts: number;
  failures: number;
  failuresClassified: number;
  failuresContradicting: number;
  failuresCodeContradicting: number;
}

type Verdict = { verdict?: string | null };

export function contradictionGroups(rows: readonly EpisodeRow[]): ContradictionGroup[] {
  const groups = new Map<string, ContradictionGroup>();
  for (const r of rows) {
    if (!r.judged) continue;
    const key = `${r.model}\u0000${r.setting}`;
    const g = groups.get(key) ?? {
      model: r.model,
      setting: r.setting,
      judged: 0,
      classified: 0,
      consistent: 0,
      omits: 0,
      contradicts: 0,
      failures: 0,
      failuresClassified: 0,
      failuresContradicting: 0,
      failuresCodeContradicting: 0,
    };
    groups.set(key, g);
    g.judged++;
    const d = (r.diagnostics ?? {}) as { contradiction?: Verdict; contradictsObserved?: boolean | null };
    const v = d.contradiction?.verdict;
    const failure = r.score !== null && r.score <= 2;
    if (v === 'consistent' || v === 'omits' || v === 'contradicts') {
      g.classified++;
      g[v]++;
      if (failure) g.failuresClassified++;
      if (failure && v === 'contradicts') g.failuresContradicting++;
    }
    if (failure) g.failures++;
    if (failure && d.contradictsObserved) g.failuresCodeContradicting++;
  }
  return [...groups.values()].sort((a, b) => (a.model + a.setting < b.model + b.setting ? -1 : 1));
}

const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}% (${n}/${d})`);

export function contradictionSection(rows: readonly EpisodeRow[]): string {
  const groups = contradictionGroups(rows);
  if (groups.every((g) => g.classified === 0)) return '';
  const body = groups
    .map((g) =>
      [
        g.model,
        g.setting,
        `${g.classified}/${g.judged}`,
        String(g.consistent),
        String(g.omits),
        String(g.contradicts),
        pct(g.failuresContradicting, g.failuresClassified),
        pct(g.failuresCodeContradicting, g.failures),
      ]
        .map((c) => `<td>${esc(c)}</td>`)
        .join(''),
    )
    .map((r) => `<tr>${r}</tr>`)
    .join('\n');
  return `<h2>Contradictions of the agent's own observations</h2><p>The judge model classifies each final description against the calls the agent made (or the examples it was shown): consistent, omits (some observed behaviour unexplained), contradicts (predicts another value or exception for an observed input; the observation is cited in the episode's transcript). "Code-based": the code written from the description disagrees with a value the agent saw returned.</p><table><thead><tr><th>model</th><th>setting</th><th>classified</th><th>consistent</th><th>omits</th><th>contradicts</th><th>failures contradicting (classifier)</th><th>failures contradicting (code-based)</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

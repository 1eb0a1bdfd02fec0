// How a GRPO report presents its critic: the critic card (domain/training/criticCard.ts) near the top, as a
// benchmark report shows its judge card: qualified, not qualified (its failed checks), or missing with the
// command that computes it. Its step rewards are shown either way; the card says whether they are a
// measurement of anything. A document stored before critic cards (no `criticCard`) says so. Pure code.
import { esc, table } from '../report/html';
import { checkText, criticCardLines, type CriticCardStatus } from '../training/criticCard';

/** The card's one-line verdict (the terminal text's first critic line). */
export function criticCardTitle(status: CriticCardStatus | undefined): string {
  if (!status) return 'critic card: none attached to this report (stored before critic cards)';
  if (status.status === 'missing') return `critic card: none yet for critic ${status.criticModel}; compute it: ${status.command}`;
  return criticCardLines(status.card)[0]!;
}

/** The terminal lines: the card's lines, or the one line saying there is none. */
export function criticCardText(status: CriticCardStatus | undefined): string[] {
  if (!status || status.status === 'missing') return [criticCardTitle(status)];
  return criticCardLines(status.card);
}

/** The HTML section: the verdict, each check against its threshold, what else the card measured. */
export function criticCardSection(status: CriticCardStatus | undefined): string {
  if (!status) return `<div class="card"><h2>Critic card</h2><p>${esc(criticCardTitle(status))}.</p></div>`;
  if (status.status === 'missing')
    return `<div class="card bad"><h2>Critic card</h2><p>None yet for critic <code>${esc(status.criticModel)}</code>: its step rewards are not a checked measurement. Compute it with <code>${esc(status.command)}</code>.</p></div>`;
  const c = status.card;
  const [title, ...rest] = criticCardLines(c);
  const measures = rest.filter((l) => !/^\s+(pass|FAIL)\s/.test(l)).map((l) => l.trim());
  return (
    `<div class="card ${c.qualified ? 'ok' : 'bad'}"><h2>Critic card</h2><p>${esc(title!.replace(/^critic card: /, ''))}</p>` +
    table(
      ['check', 'value', 'needs', 'pass'],
      c.checks.map((k) => [k.name, checkText(k), k.threshold, k.pass ? 'pass' : 'FAIL']),
    ) +
    `<ul>${measures.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` +
    (status.status === 'unqualified'
      ? `<p class="withheld">Critic ${esc(c.criticModel)} did not qualify: its step rewards do not order new behaviour above repeats.</p>`
      : '') +
    '</div>'
  );
}

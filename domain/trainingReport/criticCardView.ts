// How a GRPO report presents its critic, near the top, as a benchmark report shows its judge card: its
// on-policy card (domain/training/onPolicyCard.ts) when one exists for the run's policy, else its card on
// recorded episodes (domain/training/criticCard.ts): qualified, not qualified (its failed checks), or missing
// with the command that computes it. Its step rewards are shown either way; the card says whether they are a
// measurement of anything. A document stored before critic cards (no `criticCard`) says so. Pure code.
import { esc, table } from '../report/html';
import { checkText, criticCardLines } from '../training/criticCard';
import { onPolicyCardLines, type RunCriticStatus } from '../training/onPolicyCard';

/** The card's one-line verdict (the terminal text's first critic line). */
export function criticCardTitle(status: RunCriticStatus | undefined): string {
  if (!status) return 'critic card: none attached to this report (stored before critic cards)';
  if (status.status === 'missing') return `critic card: none yet for critic ${status.criticModel}; compute it: ${status.command}`;
  return criticCardText(status)[0]!;
}

/** The terminal lines: the card's lines, or the one line saying there is none. */
export function criticCardText(status: RunCriticStatus | undefined): string[] {
  if (!status || status.status === 'missing') return [criticCardTitle(status)];
  return status.status === 'on-policy' ? onPolicyCardLines(status.card) : criticCardLines(status.card);
}

/** The HTML section: the verdict, each check against its threshold, what else the card measured. */
export function criticCardSection(status: RunCriticStatus | undefined): string {
  if (!status) return `<div class="card"><h2>Critic card</h2><p>${esc(criticCardTitle(status))}.</p></div>`;
  if (status.status === 'missing')
    return `<div class="card bad"><h2>Critic card</h2><p>None yet for critic <code>${esc(status.criticModel)}</code>: its step rewards are not a checked measurement. Compute it with <code>${esc(status.command)}</code>.</p></div>`;
  const c = status.card;
  const [title, ...rest] = criticCardText(status);
  const measures = rest.filter((l) => !/^\s+(pass|FAIL)\s/.test(l)).map((l) => l.trim());
  return (
    `<div class="card ${c.qualified ? 'ok' : 'bad'}"><h2>Critic card</h2><p>${esc(title!.replace(/^critic card:? /, ''))}</p>` +
    table(
      ['check', 'value', 'needs', 'pass'],
      c.checks.map((k) => [k.name, checkText(k), k.threshold, k.pass ? 'pass' : 'FAIL']),
    ) +
    `<ul>${measures.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` +
    (status.status === 'unqualified'
      ? `<p class="withheld">Critic ${esc(status.card.criticModel)} did not qualify: its step rewards do not order new behaviour above repeats.</p>`
      : '') +
    (status.status === 'on-policy' && !status.card.qualified
      ? `<p class="withheld">Critic ${esc(status.card.label)} did not qualify on the policy's rollouts: its step rewards do not follow what the steps revealed when run.</p>`
      : '') +
    '</div>'
  );
}

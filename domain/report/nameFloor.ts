// The name-only floor a report draws under code match, per name setting (domain/episode/names.ts): the code
// writer's code match from a description that says nothing, which is what the name and signature alone reach.
// Under the original names it is the judge card's empty rung; with the names anonymised the card's figure
// (written from the real name) does not apply, and the run's own `mock-null` anchor ("I do not know what this
// method does.", judged through the same anonymised view) measures it. Pure code.
import { runNameSetting, type NameSetting } from '../episode/names';
import { type ReportView, reportView, type RunJudge } from './judgeCardView';
import type { GroupSummary } from './summarize';

/** The anchor whose content-free description measures the floor in the run's own setting. */
export const FLOOR_ANCHOR = 'mock-null';

export interface NameFloor {
  names: NameSetting;
  /** The floor (a share), or null when the run cannot show one. */
  value: number | null;
  /** What the figure is, for the line under the table (or why there is none). */
  label: string;
}

export function nameFloor(runConfig: unknown, view: ReportView, groups: readonly GroupSummary[]): NameFloor {
  const names = runNameSetting(runConfig);
  if (names === 'original') return { names, value: view.emptyFloor, label: 'the code writer from name and signature alone, on the judge card' };
  const anchor = groups.find((g) => g.model === FLOOR_ANCHOR && g.setting === 'interactive');
  const mean = anchor?.judgedOnly.codeMatchUnobserved.mean ?? null;
  if (!anchor || mean === null)
    return { names, value: null, label: `names anonymised: no floor, as the run has no judged ${FLOOR_ANCHOR} anchor (the card's floor used the real names)` };
  return { names, value: mean, label: `the code writer from \`f\` and the signature alone: this run's ${FLOOR_ANCHOR} anchor, ${anchor.judged} judged` };
}

/** The view with the floor of the run's own name setting. */
export function viewWithNameFloor(view: ReportView, floor: NameFloor): ReportView {
  return { ...view, emptyFloor: floor.value };
}

/** The line a report of an anonymised run carries under its title. */
export const NAMES_ANONYMISED_TEXT =
  'names anonymised: the agent and the code writer saw the function as `f` (the judge and the sandbox the real code); compare with runs of the original names paired, never pooled';

/** A run's report view with the floor of its own name setting, and that floor: what every report surface shows. */
export function namedReportView(doc: RunJudge & { run?: { config: unknown } | null; summary: { groups: readonly GroupSummary[] } }): {
  view: ReportView;
  floor: NameFloor;
} {
  const base = reportView(doc);
  const floor = nameFloor(doc.run?.config, base, doc.summary.groups);
  return { view: viewWithNameFloor(base, floor), floor };
}

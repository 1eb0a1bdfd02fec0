// The report's calibration section: controls of code match that depend on no judge model (the original
// against itself, mutants, constant and identity functions), from the latest calibration run of the
// benchmark's dataset split. Pure code.
import { calibrationRows, type CalibrationSummary } from '../calibration/summarize';
import { esc } from './html';

export interface ReportCalibration {
  dataset: string;
  split: string;
  latest: { runId: string; summary: CalibrationSummary } | null;
}

export function calibrationSection(c: ReportCalibration): string {
  const head = '<h2>Calibration controls (no judge model involved)</h2>';
  if (!c.latest) {
    return `${head}<p>No calibration run for ${esc(c.dataset)}/${esc(c.split)} yet: <code>npm run pau -- calibrate --dataset ${esc(c.dataset)} --split ${esc(c.split)}</code>.</p>`;
  }
  const s = c.latest.summary;
  const rows = calibrationRows(s)
    .map((r) => `<tr>${r.map((x) => `<td>${esc(x)}</td>`).join('')}</tr>`)
    .join('\n');
  const excluded =
    s.excluded.length > 0
      ? `<details><summary>${s.excluded.length} methods excluded</summary><ul>${s.excluded.map((e) => `<li><code>${esc(e.methodId)}</code>: ${esc(e.reason)}</li>`).join('')}</ul></details>`
      : '';
  return `${head}<p>Code match of functions whose answer is known, on the same held-out inputs the judge uses (calibration run <code>${esc(c.latest.runId)}</code>, ${s.methods} methods of ${esc(c.dataset)}/${esc(c.split)}): the original must score 100%; small mutants of it should score below; constant and identity functions are the floor a description-free answer reaches.</p><table><thead><tr><th>control</th><th>value</th><th>expected</th></tr></thead><tbody>\n${rows}\n</tbody></table>${excluded}`;
}

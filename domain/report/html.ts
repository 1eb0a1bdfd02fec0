// The HTML pieces every report page shares: escaping, the table, the plot palette and the stylesheet. Pure code.

export function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export function table(headers: string[], rows: string[][], rawCols: number[] = []): string {
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td>${rawCols.includes(i) ? c : esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** The stylesheet every HTML report shares. */
export const REPORT_STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#f3f3f3}tbody tr:nth-child(even){background:#fafafa}.legend{font-size:12px;margin-bottom:1em}
.key i{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}code{background:#f3f3f3;padding:0 3px}
.banner{border:2px solid #c0392b;background:#fdecea;color:#7b241c;padding:.6em 1em;font-weight:600;margin:1em 0}
.card{border:1px solid #bbb;padding:.3em 1em;margin:1em 0}.card.ok{border-color:#59a14f;background:#f3faf1}.card.bad{border-color:#c0392b;background:#fff8f7}
.withheld{font-weight:600;color:#7b241c}.plots{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
`;

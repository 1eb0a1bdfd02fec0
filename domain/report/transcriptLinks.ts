// Where a run's report and its episode transcript pages sit relative to each other:
// `<dir>/<base>.html` and `<dir>/<base>.episodes/<episode>.html`. Pure code (the report links with it,
// the writer writes with it).

/** A run id as a file name (`/` and other unsafe characters become `_`). */
export function reportBaseName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]+/g, '_');
}

// FNV-1a: distinguishes episode ids that flatten to the same file name (`a/b` and `a_b`).
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The transcript page's file name: the episode id without the run prefix, flattened, plus a short hash. */
export function transcriptFileName(runId: string, episodeId: string): string {
  const rest = episodeId.startsWith(`${runId}/`) ? episodeId.slice(runId.length + 1) : episodeId;
  return `${rest.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 150)}-${shortHash(episodeId)}.html`;
}

export function transcriptsDirName(runId: string): string {
  return `${reportBaseName(runId)}.episodes`;
}

/** The page's path relative to the report's HTML file. */
export function transcriptHref(runId: string, episodeId: string): string {
  return `${encodeURIComponent(transcriptsDirName(runId))}/${encodeURIComponent(transcriptFileName(runId, episodeId))}`;
}

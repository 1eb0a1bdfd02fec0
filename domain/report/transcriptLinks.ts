// Where a run's report and its episode transcript pages sit relative to each other:
// `<dir>/<base>.html` and `<dir>/<base>.episodes/<episode>.html`. Pure code (the report links with it,
// the writer writes with it).
import { fnv1aHex } from '../common/hash';

/** A run id as a file name (`/` and other unsafe characters become `_`). */
export function reportBaseName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/**
 * The transcript page's file name: the episode id without the run prefix, flattened, plus a short hash
 * (FNV-1a of the whole id) that tells apart ids which flatten alike (`a/b` and `a_b`).
 */
export function transcriptFileName(runId: string, episodeId: string): string {
  const rest = episodeId.startsWith(`${runId}/`) ? episodeId.slice(runId.length + 1) : episodeId;
  return `${rest.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 150)}-${fnv1aHex(episodeId)}.html`;
}

export function transcriptsDirName(runId: string): string {
  return `${reportBaseName(runId)}.episodes`;
}

/** The page's path relative to the report's HTML file. */
export function transcriptHref(runId: string, episodeId: string): string {
  return `${encodeURIComponent(transcriptsDirName(runId))}/${encodeURIComponent(transcriptFileName(runId, episodeId))}`;
}

// Writes a run's episode transcript pages beside its report: `<dir>/<run>.episodes/<episode>.html`, the
// files the report's episode table links to. Rewritten whole each time (a re-judged run shows the new verdicts).
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../db/client';
import { loadTranscripts } from '../../db/queries/transcriptRows';
import { renderTranscriptHtml } from '../../domain/report/renderTranscriptHtml';
import { transcriptFileName, transcriptsDirName } from '../../domain/report/transcriptLinks';
import { ensurePrivateDir, writePrivateFile } from '../../platform/process/privateFiles';

/** Writes the pages into `reportDir` (the folder of the report's HTML); returns their folder and count. */
export async function writeTranscriptPages(db: Db, runId: string, reportDir: string): Promise<{ dir: string; pages: number }> {
  const dir = path.join(reportDir, transcriptsDirName(runId));
  const loaded = await loadTranscripts(db, runId);
  fs.rmSync(dir, { recursive: true, force: true });
  ensurePrivateDir(dir);
  for (const { transcript, entryPoint } of loaded) {
    writePrivateFile(path.join(dir, transcriptFileName(runId, transcript.episodeId)), renderTranscriptHtml(transcript, entryPoint));
  }
  return { dir, pages: loaded.length };
}

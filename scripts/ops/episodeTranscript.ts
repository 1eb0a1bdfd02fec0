// `pau runs show RUN --episode ID`: one episode's transcript in the terminal (the same parts as its page
// beside the report). ID is the full episode id or the part after `RUN/`.
import type { Db } from '../../db/client';
import { loadTranscripts } from '../../db/queries/transcriptRows';
import { renderTranscriptText } from '../../domain/report/renderTranscriptText';
import { NotFoundError } from '../lib/notFound';

export async function printEpisode(db: Db, runId: string, episode: string, full: boolean): Promise<number> {
  const episodeId = episode.startsWith(`${runId}/`) ? episode : `${runId}/${episode}`;
  const [found] = await loadTranscripts(db, runId, episodeId);
  if (!found) throw new NotFoundError(`no episode ${JSON.stringify(episodeId)} in run ${runId} (npm run pau -- runs show ${runId} --all lists them)`);
  console.log(renderTranscriptText(found.transcript, found.entryPoint, { full }));
  return 0;
}

// `npm run build` (and the first step of `npm start`, `npm run workers`, `npm run bench:episodes`): compiles
// the entry points into .build/current when a source changed since the last build (platform/build/entries.ts),
// so those long-lived processes run with plain `node`, without tsx's loader. Prints a line only when it builds.
import { errorText } from '../domain/temporal/errorText';
import { ensureBuilt } from '../platform/build/entries';

const started = Date.now();
try {
  const { dir, built } = await ensureBuilt();
  if (built) console.log(`build: compiled the entry points into ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error(`build: compiling the entry points failed: ${errorText(err)}`);
  process.exitCode = 1;
}

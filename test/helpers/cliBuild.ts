// The compiled entry points (platform/build/entries.ts) for the tests that spawn them, built once per test
// process when a source changed. PAU_TEST_CLI=tsx runs the sources with tsx instead, as `npm run pau` does.
import { COMPILED_ENTRIES, compiledPath, ensureBuilt } from '../../platform/build/entries';

let built: Promise<string> | undefined;

/** The compiled entry's path for `script`, building (or rebuilding, after a source change) once per process. */
export async function compiledEntry(script: string): Promise<string | undefined> {
  const entry = COMPILED_ENTRIES.find((e) => e === script);
  if (process.env.PAU_TEST_CLI === 'tsx' || entry === undefined) return undefined;
  built ??= ensureBuilt().then((b) => b.dir);
  return compiledPath(await built, entry);
}

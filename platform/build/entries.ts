// The project's entry points compiled with esbuild: the `pau` CLI, the worker scripts and bench:episodes.
// `npm start`, `npm run workers` and `npm run bench:episodes` run the compiled entry with plain `node`, and the
// tests spawn it. Under tsx every such process kept tsx's loader (hooks on their own thread with their own heap,
// and esbuild's service process) for its whole life: about 80 MiB of PSS of a ~360 MiB worker process
// (bench:peer, 2026-12-02, 2 cores); and every spawn paid about 1.2 s of CPU for the hooks over the whole import graph.
// The program is the same code: every TypeScript file bundled as written, `import.meta.url` replaced by its own
// file's URL (so paths next to a file resolve as under tsx), packages loaded from node_modules, each verb's lazy
// import kept lazy by code splitting. `npm run pau` still runs the sources with tsx (a one-off command).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, stop } from 'esbuild';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../config/env';

/** The scripts that are compiled; any other script runs with tsx. */
export const COMPILED_ENTRIES = [
  'scripts/pau.ts',
  'workers/all.ts',
  'workers/pau.ts',
  'workers/pau-sandbox.ts',
  'workers/pau-gpu.ts',
  'harness/bench/episodes.ts',
] as const;

/** Where the current build is: a link to the latest folder under `.build/`, swapped in one rename. */
export const BUILD_LINK = path.join(PROJECT_ROOT, '.build', 'current');

const stampSchema = z.object({ file: z.string(), mtimeMs: z.number(), size: z.number() });
type Stamp = z.infer<typeof stampSchema>;

const stampOf = (file: string): Stamp | undefined => {
  try {
    const s = fs.statSync(file);
    return { file, mtimeMs: s.mtimeMs, size: s.size };
  } catch {
    return undefined;
  }
};

/** A build is current while every file it read is unchanged (a new import changes the file that imports it). */
export function buildIsCurrent(dir = BUILD_LINK): boolean {
  try {
    const stamps = z.array(stampSchema).parse(JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json'), 'utf8')));
    return stamps.every((s) => {
      const now = stampOf(s.file);
      return now?.mtimeMs === s.mtimeMs && now.size === s.size;
    });
  } catch {
    return false;
  }
}

/** Builds into a fresh folder and points `link` at it in one rename, so a process using the old build keeps it. */
async function compile(link: string): Promise<void> {
  const dir = `${link}.${process.pid}.${Date.now()}`;
  fs.mkdirSync(dir, { recursive: true });
  try {
    const result = await build({
      entryPoints: COMPILED_ENTRIES.map((e) => ({ in: path.join(PROJECT_ROOT, e), out: e.replace(/\.ts$/, '') })),
      absWorkingDir: PROJECT_ROOT,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      metafile: true,
      logLevel: 'silent',
      plugins: [
        {
          name: 'own-import-meta-url',
          setup(b) {
            b.onLoad({ filter: /\.ts$/ }, async (a) => {
              const src = await fs.promises.readFile(a.path, 'utf8');
              return { contents: src.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(a.path).href)), loader: 'ts' };
            });
          },
        },
      ],
    });
    const stamps = Object.keys(result.metafile.inputs)
      .map((f) => stampOf(path.resolve(PROJECT_ROOT, f)))
      .filter((s): s is Stamp => s !== undefined);
    fs.writeFileSync(path.join(dir, 'inputs.json'), JSON.stringify(stamps));
    // Packages resolve from the bundle's folder upwards: point it at the project's (a build may live elsewhere).
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  } finally {
    // esbuild's service is a child process that would otherwise live as long as this one.
    await stop();
  }
  const tmpLink = `${dir}.link`;
  fs.symlinkSync(dir, tmpLink);
  fs.renameSync(tmpLink, link);
  // Builds replaced more than a day ago: no process still uses them.
  const parent = path.dirname(link);
  for (const name of fs.readdirSync(parent)) {
    const old = path.join(parent, name);
    if (name.startsWith(`${path.basename(link)}.`) && old !== dir && Date.now() - fs.statSync(old).mtimeMs > 86_400_000)
      fs.rmSync(old, { recursive: true, force: true });
  }
}

/** The current build's folder, compiling first when a source it read has changed (or there is none). */
export async function ensureBuilt(link = BUILD_LINK): Promise<{ dir: string; built: boolean }> {
  if (buildIsCurrent(link)) return { dir: link, built: false };
  await compile(link);
  return { dir: link, built: true };
}

/** A compiled entry's path in a build folder: `scripts/pau.ts` -> `<dir>/scripts/pau.mjs`. */
export function compiledPath(dir: string, script: (typeof COMPILED_ENTRIES)[number]): string {
  return path.join(dir, script.replace(/\.ts$/, '.mjs'));
}

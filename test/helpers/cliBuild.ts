// The project's entry points (the `pau` CLI, the worker scripts) compiled once with esbuild, for the tests that
// spawn them. Started with tsx, every spawn paid about 1.2 s of CPU for tsx's loader hooks over the whole import
// graph (node_modules included) before the program did anything; the compiled entry starts in 0.2-0.9 s of CPU.
// The program is the same code: every TypeScript file is bundled as written, `import.meta.url` replaced by its own
// file's URL (so paths next to a file resolve as under tsx), packages loaded from node_modules, each verb's lazy
// import kept lazy by code splitting. PAU_TEST_CLI=tsx runs the sources with tsx instead, as `npm run pau` does.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../../config/env';

/** The scripts tests spawn; any other script runs with tsx. */
export const COMPILED_ENTRIES = ['scripts/pau.ts', 'workers/all.ts', 'workers/pau.ts', 'workers/pau-sandbox.ts', 'workers/pau-gpu.ts'] as const;

interface Stamp {
  file: string;
  mtimeMs: number;
  size: number;
}

const stampOf = (file: string): Stamp | undefined => {
  try {
    const s = fs.statSync(file);
    return { file, mtimeMs: s.mtimeMs, size: s.size };
  } catch {
    return undefined;
  }
};

/** A build is current while every file it read is unchanged (a new import changes the file that imports it). */
function current(dir: string): boolean {
  try {
    const stamps = JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json'), 'utf8')) as Stamp[];
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
  // Packages resolve from the bundle's folder upwards: point it at the project's.
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const tmpLink = `${dir}.link`;
  fs.symlinkSync(dir, tmpLink);
  fs.renameSync(tmpLink, link);
  // Builds replaced more than a day ago: no test process of a current run still uses them.
  const parent = path.dirname(link);
  for (const name of fs.readdirSync(parent)) {
    const old = path.join(parent, name);
    if (name.startsWith(`${path.basename(link)}.`) && old !== dir && Date.now() - fs.statSync(old).mtimeMs > 86_400_000)
      fs.rmSync(old, { recursive: true, force: true });
  }
}

let built: Promise<string> | undefined;

/** The compiled entry's path for `script`, building (or rebuilding, after a source change) once per process. */
export async function compiledEntry(script: string): Promise<string | undefined> {
  if (process.env.PAU_TEST_CLI === 'tsx' || !(COMPILED_ENTRIES as readonly string[]).includes(script)) return undefined;
  built ??= (async () => {
    const dir = path.join(os.tmpdir(), `pau-cli-${createHash('sha1').update(PROJECT_ROOT).digest('hex').slice(0, 12)}`);
    if (!current(dir)) await compile(dir);
    return dir;
  })();
  return path.join(await built, script.replace(/\.ts$/, '.mjs'));
}

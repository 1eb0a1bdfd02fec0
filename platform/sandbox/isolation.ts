// How an executor process is launched for each isolation mode: the command line (bubblewrap or not),
// a clean minimal environment (never process.env: no host secrets reach the sandbox), and where the
// Python side lives. Mode selection with loud fallback is in pool.ts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';

export type RequestedMode = 'auto' | 'bwrap' | 'seccomp' | 'none';
export type LaunchKind = 'bwrap' | 'seccomp' | 'none';

export const SANDBOX_SRC = path.join(PROJECT_ROOT, 'sandbox');
/** Where the Python side is mounted inside bubblewrap. */
const SANDBOX_MOUNT = '/pau-sandbox';
const SCRATCH_IN_BWRAP = '/tmp';
const SCRATCH_TMPFS_BYTES = 64 * 1024 * 1024;
/** What hides bubblewrap's init's memory and descriptors (see buildLaunch). */
const PID1_MASKS = ['--ro-bind', '/dev/null', '/proc/1/mem', '--ro-bind', '/dev/null', '/proc/1/task/1/mem'];

export interface PythonInfo {
  executable: string;
  realExecutable: string;
  prefix: string;
  basePrefix: string;
  /** site-packages of a virtualenv (empty for a plain interpreter). */
  venvSitePackages: string[];
}

/** Where a virtualenv's site-packages are mounted inside bubblewrap (see buildLaunch). */
const VENV_SITE_MOUNT = '/pau-site';

const pythonInfoCache = new Map<string, PythonInfo>();

/** Ask the interpreter where it lives (once per interpreter), so bubblewrap can bind just that. */
export function probePython(python: string): PythonInfo {
  const cached = pythonInfoCache.get(python);
  if (cached) return cached;
  const out = execFileSync(
    python,
    [
      '-s',
      '-c',
      'import sys,os,json;print(json.dumps([os.path.realpath(sys.executable),sys.prefix,sys.base_prefix,' +
        '[p for p in sys.path if sys.prefix!=sys.base_prefix and p.startswith(sys.prefix) and p.endswith("site-packages")]]))',
    ],
    { env: minimalEnv('/tmp', 0), encoding: 'utf8', timeout: 20_000 },
  );
  const [realExecutable, prefix, basePrefix, venvSitePackages] = JSON.parse(out) as [string, string, string, string[]];
  const info = { executable: python, realExecutable, prefix, basePrefix, venvSitePackages };
  pythonInfoCache.set(python, info);
  return info;
}

/** The executor's whole environment. PYTHONHASHSEED is fixed so set/dict order is reproducible. */
export function minimalEnv(scratch: string, hashSeed: number): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    HOME: scratch,
    TMPDIR: scratch,
    PYTHONHASHSEED: String(hashSeed),
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONNOUSERSITE: '1',
    PYTHONIOENCODING: 'utf-8',
  };
}

function underUsr(p: string): boolean {
  return p === '/usr' || p.startsWith('/usr/');
}

/** Bind a top-level compat path (/lib, /lib64, /bin) the way the host has it: symlink or directory. */
function compatPath(p: string): string[] {
  try {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return ['--symlink', fs.readlinkSync(p), p];
    if (st.isDirectory()) return ['--ro-bind', p, p];
  } catch {
    // absent on this host
  }
  return [];
}

export interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** A host directory to delete when the executor ends (non-bwrap scratch). */
  hostScratch?: string;
}

export interface LaunchOptions {
  /** Call children the executor keeps ready (its --spares). */
  spares?: number;
  /** The Python side's directory (default SANDBOX_SRC); benchmarks point it at another version of it. */
  sandboxDir?: string;
}

export function buildLaunch(kind: LaunchKind, python: string, bwrap: string, hashSeed: number, opts: LaunchOptions = {}): Launch {
  const spares = ['--spares', String(opts.spares ?? 1)];
  const sandboxDir = opts.sandboxDir ?? SANDBOX_SRC;
  if (kind === 'bwrap') {
    const info = probePython(python);
    const binds: string[] = [];
    const bound = new Set<string>();
    // The real interpreter at its own path; a virtualenv's site-packages at fixed paths on PYTHONPATH.
    // The virtualenv itself is not bound: it lives in the project, which may sit under /tmp, where the
    // scratch tmpfs would hide it (and its files are none of the sandbox's business).
    for (const dir of [info.basePrefix, path.dirname(path.dirname(info.realExecutable))]) {
      if (underUsr(dir) || bound.has(dir)) continue;
      bound.add(dir);
      binds.push('--ro-bind', dir, dir);
    }
    const sitePaths = info.venvSitePackages.map((_, i) => `${VENV_SITE_MOUNT}/${i}`);
    info.venvSitePackages.forEach((dir, i) => {
      binds.push('--ro-bind', dir, sitePaths[i]!);
    });
    const env = { ...minimalEnv(SCRATCH_IN_BWRAP, hashSeed), ...(sitePaths.length > 0 ? { PYTHONPATH: sitePaths.join(':') } : {}) };
    const args = [
      '--unshare-all', // user, ipc, pid, net (loopback only), uts, cgroup namespaces
      '--die-with-parent',
      '--new-session', // no controlling terminal: TIOCSTI cannot reach the host's shell
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/usr',
      '/usr',
      ...compatPath('/lib'),
      ...compatPath('/lib64'),
      ...compatPath('/bin'),
      ...binds,
      '--ro-bind',
      sandboxDir,
      SANDBOX_MOUNT,
      '--proc',
      '/proc',
      // PID 1 is bubblewrap's init: same uid as the calls and dumpable, so a call could otherwise open
      // its memory through /proc and write into an unfiltered process that outlives every call.
      ...PID1_MASKS,
      '--dev',
      '/dev',
      '--remount-ro',
      '/dev', // /dev/shm would otherwise be a writable place outside the scratch dir
      '--size',
      String(SCRATCH_TMPFS_BYTES),
      '--tmpfs',
      SCRATCH_IN_BWRAP,
      '--hostname',
      'pau-sandbox',
      '--remount-ro',
      '/', // the sandbox's own root (a tmpfs holding the mount points) is not a scratch area
      '--clearenv',
      ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
      '--chdir',
      SCRATCH_IN_BWRAP,
      '--',
      info.realExecutable,
      '-s',
      '-B',
      path.join(SANDBOX_MOUNT, 'executor.py'),
      '--seccomp',
      '--fs-writes',
      '--scratch',
      SCRATCH_IN_BWRAP,
      '--scratch-tmpfs',
      ...spares,
    ];
    return { command: bwrap, args, env: minimalEnv('/tmp', hashSeed) };
  }
  // Without bubblewrap the scratch dir is a private host temp dir. Under seccomp it is read-only in
  // effect (every write-open is refused); with no isolation at all it is merely the working directory.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-sandbox-'));
  const args = ['-s', '-B', path.join(sandboxDir, 'executor.py'), '--scratch', scratch, ...spares];
  if (kind === 'seccomp') args.push('--seccomp');
  else args.push('--fs-writes');
  return { command: python, args, env: minimalEnv(scratch, hashSeed), hostScratch: scratch };
}

/** Whether the bubblewrap binary exists (user namespaces are tested by actually starting it). */
export function bwrapAvailable(bwrap: string): boolean {
  try {
    execFileSync(bwrap, ['--version'], { stdio: 'ignore', timeout: 5000, env: minimalEnv('/tmp', 0) });
    return true;
  } catch {
    return false;
  }
}

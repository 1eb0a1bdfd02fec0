// Finds a source file: PAU_DATA_DIR first, then the download cache (PAU_STATE_DIR/cache/datasets), then
// the public URL when the machine is online. Every copy is checked against its pinned checksum; a
// mismatch is an error, never a warning. Offline, a missing file fails with the expected path and checksum.
import fs from 'node:fs';
import path from 'node:path';
import { fileDigest } from './checksum';
import type { SourceFile } from '../../domain/dataset/sources';

export type Fetcher = (url: string, signal: AbortSignal) => Promise<Buffer>;

export const httpFetcher: Fetcher = async (url, signal) => {
  const res = await fetch(url, { signal, redirect: 'follow' });
  if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
  return Buffer.from(await res.arrayBuffer());
};

export interface LocateOptions {
  dataDir: string;
  cacheDir: string;
  fetcher?: Fetcher;
  /** Download timeout in ms (the first byte must come quickly offline: DNS fails fast). */
  timeoutMs?: number;
  /** Do not try the network (fail with the offline message at once). */
  offline?: boolean;
}

export class ChecksumMismatchError extends Error {
  override name = 'ChecksumMismatchError';
  constructor(
    public readonly file: string,
    public readonly expected: string,
    public readonly actual: string,
  ) {
    super(`checksum mismatch for ${file}: expected ${expected}, got ${actual}. The file is not the pinned public copy; replace it (see docs/datasets.md).`);
  }
}

export class SourceUnavailableError extends Error {
  override name = 'SourceUnavailableError';
}

function checked(file: string, spec: SourceFile): string {
  const actual = fileDigest(fs.readFileSync(file), spec.sha256);
  if (actual !== spec.sha256) throw new ChecksumMismatchError(file, spec.sha256, actual);
  return file;
}

/** The local path of a verified copy of `spec`, downloading it into the cache when needed. */
export async function locateSourceFile(spec: SourceFile, opts: LocateOptions): Promise<string> {
  const local = path.join(opts.dataDir, spec.path);
  if (fs.existsSync(local)) return checked(local, spec);
  const cached = path.join(opts.cacheDir, spec.path);
  if (fs.existsSync(cached)) return checked(cached, spec);
  const where = `${spec.path} (expected ${spec.sha256}${spec.bytes ? `, ${spec.bytes} bytes` : ''})`;
  if (opts.offline)
    throw new SourceUnavailableError(
      `source file ${where} is not in ${opts.dataDir} nor in the cache ${opts.cacheDir}, and downloads are off. Put a copy at ${local}.`,
    );
  let bytes: Buffer;
  try {
    bytes = await (opts.fetcher ?? httpFetcher)(spec.url, AbortSignal.timeout(opts.timeoutMs ?? 20_000));
  } catch (err) {
    throw new SourceUnavailableError(
      `source file ${where} is not in ${opts.dataDir} nor in the cache ${opts.cacheDir}, and downloading it from ${spec.url} failed ` +
        `(offline? ${(err as Error).message}). Put a copy at ${local} or ${cached}.`,
    );
  }
  let actual = fileDigest(bytes, spec.sha256);
  // The uncompressed HumanEval is published only gzipped.
  if (actual !== spec.sha256 && spec.url.endsWith('.gz') && !spec.path.endsWith('.gz')) {
    const { gunzipSync } = await import('node:zlib');
    bytes = gunzipSync(bytes);
    actual = fileDigest(bytes, spec.sha256);
  }
  if (actual !== spec.sha256) throw new ChecksumMismatchError(`${spec.url} (downloaded)`, spec.sha256, actual);
  fs.mkdirSync(path.dirname(cached), { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, cached);
  return cached;
}

/** True when a verified copy is available without the network. */
export function isLocallyAvailable(spec: SourceFile, opts: Pick<LocateOptions, 'dataDir' | 'cacheDir'>): boolean {
  return [path.join(opts.dataDir, spec.path), path.join(opts.cacheDir, spec.path)].some((f) => fs.existsSync(f));
}

// Every payload this project writes to Temporal (workflow and activity inputs and results, signals,
// queries, memos, summaries) is encrypted and authenticated with AES-256-GCM by this payload codec, the
// SDK's documented place for it (`dataConverter.payloadCodecs` of the client and the workers; codecs run
// outside the workflow sandbox, so the bundle needs nothing). Anyone who reaches the Temporal port (on the
// local dev server: every user of the machine) sees ciphertext only, and cannot make a worker act on an
// input it wrote itself: the workers' codec hands such payloads on as marks that the payload guard
// (domain/temporal/payloadGuard.ts) refuses unless the workflow predates the codec.
//
// The key: PAU_TEMPORAL_CODEC_KEY or PAU_TEMPORAL_CODEC_KEY_FILE (external deployments: one key shared by
// every client and worker), else the local stack's secret `temporal-codec-key`, made on first use beside
// the time it was made (`temporal-codec-cutover`): plain payloads of workflows started before that time
// are the histories that predate the codec.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Payload, PayloadCodec } from '@temporalio/common';
// @temporalio/proto is CommonJS without named ESM exports: take the namespace from the default export.
import proto from '@temporalio/proto';
import { ENCRYPTED_ENCODING, GUARD_MARK, type GuardMark } from '../domain/temporal/payloadGuard';
import { env } from './env';
import { readOrCreateSecret, secretPath } from './secrets';

const PayloadProto = proto.temporal.api.common.v1.Payload;
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export interface CodecKey {
  /** A fingerprint of the key (not the key): written beside each payload so a wrong key is named. */
  id: string;
  key: Buffer;
}

export interface CodecConfig {
  /** The first encrypts; all decrypt (a rotated-out key stays readable). */
  keys: CodecKey[];
  /** Plain payloads of workflows started before this time are admitted; undefined: none ever are. */
  cutoverMs: number | undefined;
  /** Where the key came from, for messages (never the key). */
  source: string;
}

/**
 * What decode does with a payload that is not encrypted: `mark` (workers) hands it to the payload guard,
 * which admits it only in a history that predates the codec; `pass` (the owner's client, the codec
 * endpoint, replay) returns it as it is, so old results stay readable.
 */
export type UnencodedPolicy = 'mark' | 'pass';

export class CodecKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CodecKeyError';
  }
}

export function keyFromBytes(key: Buffer): CodecKey {
  if (key.length !== 32) throw new CodecKeyError(`a payload codec key must be 32 bytes, got ${key.length}`);
  return { id: `pau-${crypto.createHash('sha256').update(key).digest('hex').slice(0, 12)}`, key };
}

/** A key as written in PAU_TEMPORAL_CODEC_KEY or its file: 32 bytes in base64 or base64url (`openssl rand -base64 32`). */
export function parseKey(text: string, where: string): CodecKey {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) throw new CodecKeyError(`${where}: expected 32 bytes in base64 (\`openssl rand -base64 32\`)`);
  return keyFromBytes(Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

function readKeyFile(file: string): string {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw new CodecKeyError(`PAU_TEMPORAL_CODEC_KEY_FILE=${file}: ${(err as Error).message}`);
  }
  // Not tightened here (it may be someone else's file, e.g. a mounted secret): refused, with the fix.
  if ((st.mode & 0o077) !== 0)
    throw new CodecKeyError(`PAU_TEMPORAL_CODEC_KEY_FILE=${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 it`);
  return fs.readFileSync(file, 'utf8');
}

let cachedConfig: CodecConfig | undefined;
/** This process's codec configuration (read once). */
export function codecConfig(): CodecConfig {
  if (cachedConfig) return cachedConfig;
  const e = env();
  const explicitCutover = e.PAU_TEMPORAL_CODEC_CUTOVER ? Date.parse(e.PAU_TEMPORAL_CODEC_CUTOVER) : undefined;
  if (e.PAU_TEMPORAL_CODEC_KEY) {
    cachedConfig = { keys: [parseKey(e.PAU_TEMPORAL_CODEC_KEY, 'PAU_TEMPORAL_CODEC_KEY')], cutoverMs: explicitCutover, source: 'PAU_TEMPORAL_CODEC_KEY' };
  } else if (e.PAU_TEMPORAL_CODEC_KEY_FILE) {
    const file = e.PAU_TEMPORAL_CODEC_KEY_FILE;
    cachedConfig = { keys: [parseKey(readKeyFile(file), `PAU_TEMPORAL_CODEC_KEY_FILE=${file}`)], cutoverMs: explicitCutover, source: file };
  } else {
    // The cut-over first: a key never exists without the time before which plain payloads were written.
    const cutover = readOrCreateSecret('temporal-codec-cutover', () => new Date().toISOString());
    const cutoverMs = explicitCutover ?? Date.parse(cutover);
    if (Number.isNaN(cutoverMs)) throw new CodecKeyError(`${secretPath('temporal-codec-cutover')}: not an ISO time (${JSON.stringify(cutover)})`);
    const key = parseKey(readOrCreateSecret('temporal-codec-key'), secretPath('temporal-codec-key'));
    cachedConfig = { keys: [key], cutoverMs, source: secretPath('temporal-codec-key') };
  }
  return cachedConfig;
}

/** Forget the configuration read (a script or test that changed the environment). */
export function resetCodecConfig(): void {
  cachedConfig = undefined;
  codecs.clear();
}

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: Map<string, CodecKey>;

  constructor(
    private readonly config: CodecConfig,
    private readonly unencoded: UnencodedPolicy,
  ) {
    if (config.keys.length === 0) throw new CodecKeyError('the payload codec needs a key');
    this.byId = new Map(config.keys.map((k) => [k.id, k]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  private encrypt(payload: Payload): Payload {
    const k = this.config.keys[0]!;
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', k.key, iv);
    cipher.setAAD(utf8.encode(k.id));
    const plain = PayloadProto.encode(payload).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), 'encryption-key-id': utf8.encode(k.id), 'encryption-cipher': utf8.encode(CIPHER) },
      data: new Uint8Array(data),
    };
  }

  private decrypt(payload: Payload): Payload {
    const meta = payload.metadata ?? {};
    const encoding = meta.encoding ? fromUtf8.decode(meta.encoding) : undefined;
    if (encoding !== ENCRYPTED_ENCODING) return this.unencoded === 'pass' ? payload : this.mark(payload, encoding);
    const id = meta['encryption-key-id'] ? fromUtf8.decode(meta['encryption-key-id']) : '(none)';
    const k = this.byId.get(id);
    if (!k) {
      // Thrown, not marked: the likely cause is a worker given the wrong key, and a failed workflow task is
      // retried until a worker with the right key takes it (nothing is lost).
      throw new CodecKeyError(
        `payload encrypted with key ${id}; this process has ${[...this.byId.keys()].join(', ')} (from ${this.config.source}): give every client and worker of the deployment the same key (PAU_TEMPORAL_CODEC_KEY_FILE)`,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    try {
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error('too short');
      const decipher = crypto.createDecipheriv('aes-256-gcm', k.key, data.subarray(0, IV_BYTES));
      decipher.setAAD(utf8.encode(k.id));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return PayloadProto.decode(plain);
    } catch {
      const reason = `an encrypted payload (key ${id}) failed authentication: it was altered or forged`;
      if (this.unencoded === 'pass') throw new CodecKeyError(reason);
      return markPayload({ kind: 'refused', reason });
    }
  }

  private mark(payload: Payload, encoding: string | undefined): Payload {
    const cutoverMs = this.config.cutoverMs;
    if (cutoverMs === undefined)
      return markPayload({ kind: 'refused', reason: `a plain payload, and this deployment accepts none (no PAU_TEMPORAL_CODEC_CUTOVER is set)` });
    if (encoding === 'binary/null') return markPayload({ kind: 'unencoded', cutoverMs });
    if (encoding === 'json/plain') return markPayload({ kind: 'unencoded', cutoverMs, json: fromUtf8.decode(payload.data ?? new Uint8Array()) });
    return markPayload({ kind: 'refused', reason: `a plain payload of encoding ${JSON.stringify(encoding ?? null)}, which the project never writes` });
  }
}

function markPayload(mark: GuardMark): Payload {
  return { metadata: { encoding: utf8.encode('json/plain') }, data: utf8.encode(JSON.stringify({ [GUARD_MARK]: mark })) };
}

let enabled = true;
/** For `bench:episodes --codec off` only (measures the codec's cost): every part of that process runs without it. */
export function disablePayloadCodecForBenchmark(): void {
  enabled = false;
}

const codecs = new Map<UnencodedPolicy, AesGcmPayloadCodec>();
export function payloadCodec(policy: UnencodedPolicy): AesGcmPayloadCodec {
  let c = codecs.get(policy);
  if (!c) {
    c = new AesGcmPayloadCodec(codecConfig(), policy);
    codecs.set(policy, c);
  }
  return c;
}

/** The data converter of this project's clients (`pass`) and workers (`mark`). */
export function temporalDataConverter(policy: UnencodedPolicy): { payloadCodecs: PayloadCodec[] } {
  return { payloadCodecs: enabled ? [payloadCodec(policy)] : [] };
}

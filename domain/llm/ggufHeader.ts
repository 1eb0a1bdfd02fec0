// The head of a GGUF file (llama.cpp's format, versions 2 and 3): its metadata and its tensors' names and
// shapes, parsed from the file's first bytes (the tensor data after them is not read). What a model's shape is
// read from where no Python is at hand (check:gpu's memory estimate). Pure: bytes in, values out.
// Layout: "GGUF", u32 version, u64 tensor count, u64 metadata count, the metadata (string key, u32 type, value),
// then per tensor its name, u32 dimensions, u64 each dimension, u32 type, u64 offset; little-endian.

export type GgufValue = number | bigint | boolean | string | GgufValue[];

export interface GgufHeader {
  version: number;
  metadata: Map<string, GgufValue>;
  tensors: { name: string; dims: number[] }[];
}

/** The bytes end before the header does: read more of the file and parse again. */
export class GgufTruncated extends Error {}

/** Not a GGUF file, or a header this parser does not know. */
export class GgufInvalid extends Error {}

const MAGIC = 0x46554747; // "GGUF" read as a little-endian u32

class Reader {
  private at = 0;
  private readonly view: DataView;
  private readonly text = new TextDecoder();
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(n: number): number {
    if (this.at + n > this.bytes.byteLength) throw new GgufTruncated(`the GGUF header goes on past byte ${this.bytes.byteLength}`);
    const at = this.at;
    this.at += n;
    return at;
  }
  u8 = () => this.view.getUint8(this.need(1));
  i8 = () => this.view.getInt8(this.need(1));
  u16 = () => this.view.getUint16(this.need(2), true);
  i16 = () => this.view.getInt16(this.need(2), true);
  u32 = () => this.view.getUint32(this.need(4), true);
  i32 = () => this.view.getInt32(this.need(4), true);
  f32 = () => this.view.getFloat32(this.need(4), true);
  f64 = () => this.view.getFloat64(this.need(8), true);
  u64 = () => this.view.getBigUint64(this.need(8), true);
  i64 = () => this.view.getBigInt64(this.need(8), true);
  /** A u64 that must fit a JS number (counts, lengths, dimensions). */
  count(): number {
    const v = this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GgufInvalid(`a count of ${v} is not a GGUF header's`);
    return Number(v);
  }
  string(): string {
    const n = this.count();
    const at = this.need(n);
    return this.text.decode(this.bytes.subarray(at, at + n));
  }
  value(type: number): GgufValue {
    switch (type) {
      case 0:
        return this.u8();
      case 1:
        return this.i8();
      case 2:
        return this.u16();
      case 3:
        return this.i16();
      case 4:
        return this.u32();
      case 5:
        return this.i32();
      case 6:
        return this.f32();
      case 7:
        return this.u8() !== 0;
      case 8:
        return this.string();
      case 9: {
        const itemType = this.u32();
        const n = this.count();
        const out: GgufValue[] = [];
        for (let i = 0; i < n; i++) out.push(this.value(itemType));
        return out;
      }
      case 10:
        return this.u64();
      case 11:
        return this.i64();
      case 12:
        return this.f64();
      default:
        throw new GgufInvalid(`unknown GGUF value type ${type}`);
    }
  }
}

export function parseGgufHeader(bytes: Uint8Array): GgufHeader {
  const r = new Reader(bytes);
  if (r.u32() !== MAGIC) throw new GgufInvalid('not a GGUF file (its first bytes are not "GGUF")');
  const version = r.u32();
  if (version !== 2 && version !== 3) throw new GgufInvalid(`GGUF version ${version} (this reader knows 2 and 3)`);
  const tensorCount = r.count();
  const metadataCount = r.count();
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < metadataCount; i++) {
    const key = r.string();
    metadata.set(key, r.value(r.u32()));
  }
  const tensors: GgufHeader['tensors'] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.string();
    const n = r.u32();
    const dims: number[] = [];
    for (let d = 0; d < n; d++) dims.push(r.count());
    r.u32(); // the tensor's type
    r.u64(); // its data's offset
    tensors.push({ name, dims });
  }
  return { version, metadata, tensors };
}

// A GGUF file's header (domain/llm/ggufHeader.ts), read from as few of its first bytes as it takes: 8 MiB,
// doubled while the header goes on (a 152k-token vocabulary and its merges take about 6 MiB).
import fs from 'node:fs';
import { type GgufHeader, GgufTruncated, parseGgufHeader } from '../../../domain/llm/ggufHeader';

const FIRST_READ = 8 * 2 ** 20;

export function readGgufHeader(file: string): GgufHeader {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    for (let n = Math.min(FIRST_READ, size); ; n = Math.min(2 * n, size)) {
      const bytes = Buffer.alloc(n);
      fs.readSync(fd, bytes, 0, n, 0);
      try {
        return parseGgufHeader(bytes);
      } catch (e) {
        if (!(e instanceof GgufTruncated) || n === size) throw e;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

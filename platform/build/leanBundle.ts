// The workflow bundle as the worker keeps it, made smaller without changing what runs. The worker holds the
// bundle's text in its main thread and again in the workflow thread, with the parsed source map beside it:
// - V8 stores a string with any character above U+00FF at two bytes per character, so the ~70 non-ASCII
//   characters of our messages (—, ×, ≤) doubled a ~3.7 MB string; written as \uXXXX escapes, the code
//   means the same and the string is one byte per character;
// - the source map's `sourcesContent` (every source file again, ~60 % of the map) is read only for
//   `showStackTraceSources`, which these workers leave off; the mappings that turn a workflow's stack
//   trace into file:line stay.
// Measured in bench:peer: about -15 MiB of the Node process's PSS (docs/sandbox.md, "Memory beside inspect_ai").
import { z } from 'zod';

/** What the worker needs of the map (its mappings); every other field is kept as it is. */
const sourceMapSchema = z.looseObject({ version: z.number(), mappings: z.string() });

const MAP_PREFIX = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,/g;

/** Each character outside ASCII as a `\uXXXX` escape (a UTF-16 unit each; a pair for one outside the BMP). */
export function asciiOnly(code: string): string {
  // An odd run of backslashes before the character escapes it (`\—` is `—`): one of them goes with it.
  return code.replace(/(\\*)([\u0080-\uffff])/g, (_m, slashes: string, ch: string) => {
    const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
    return `${kept}\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** The bundle with ASCII-only code and its inline source map without `sourcesContent`. */
export function leanBundleCode(bundle: string): string {
  const matches = [...bundle.matchAll(MAP_PREFIX)];
  const last = matches.at(-1);
  // Temporal's worker refuses a bundle without an inline source map; one without is left for it to refuse.
  if (last?.index === undefined) return asciiOnly(bundle);
  const mapText = Buffer.from(bundle.slice(last.index + last[0].length).trim(), 'base64').toString('utf8');
  const { sourcesContent: _dropped, ...map } = sourceMapSchema.parse(JSON.parse(mapText));
  const code = bundle.slice(0, last.index);
  return `${asciiOnly(code)}//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}`;
}

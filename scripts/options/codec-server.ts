// The options of `pau codec-server`: scripts/commands/codec-server.ts.
import { z } from 'zod';
import { PORT_RANGE } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

export const codecServerOptions = defineOptions({
  port: { schema: numberOption(PORT_RANGE).optional(), help: 'the port to listen on (default PAU_CODEC_SERVER_PORT; 0: any free one)' },
  'ui-port': { schema: numberOption({ ...PORT_RANGE, min: 1 }).optional(), help: 'the Web UI port allowed to call it (default PAU_TEMPORAL_UI_PORT)' },
  'print-url': { schema: z.boolean().default(false), help: "print the URL for the Web UI's Codec Server setting and the CLI flags, and exit" },
});

export const verb: VerbUsage = { forms: [{ words: 'pau codec-server', options: codecServerOptions }] };

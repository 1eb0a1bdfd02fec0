// `pau codec-server [--port 8239] [--ui-port 8233] [--print-url]`: the codec endpoint for the owner's Web UI
// and CLI (platform/stack/codecServer.ts); `stack up` starts it. --print-url prints the URL to paste into the
// Web UI's "Codec Server" setting (it holds the token: keep it to yourself) and the CLI flags, and exits.
import { env } from '../../config/env';
import { readOrCreateSecret, secretPath } from '../../config/secrets';
import { startCodecServer } from '../../platform/stack/codecServer';
import { parseCommandArgs } from '../lib/args';
import { codecServerOptions } from '../options/codec-server';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, codecServerOptions);
  const e = env();
  const port = values.port ?? e.PAU_CODEC_SERVER_PORT;
  if (values['print-url']) {
    const token = readOrCreateSecret('codec-server-token');
    console.log(`Web UI → Codec Server → endpoint: http://127.0.0.1:${port}/${token}`);
    console.log(`temporal CLI: --codec-endpoint http://127.0.0.1:${port} --codec-auth "Bearer $(cat ${secretPath('codec-server-token')})"`);
    return 0;
  }
  const server = await startCodecServer({ port, uiPort: values['ui-port'] ?? e.PAU_TEMPORAL_UI_PORT });
  console.log(`codec endpoint at ${server.url} (token: ${secretPath('codec-server-token')}); Ctrl-C stops it`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

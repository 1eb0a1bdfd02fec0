// `pau mock-llm [--port 8399] [--latency-ms 0]`: the scripted model server on its own, for demos and for
// pointing other tools at it (PAU_MOCK_LLM_URL=http://127.0.0.1:8399/v1). Not a real LLM.
import { MOCK_POLICIES } from '../../config/models';
import { startMockServer } from '../../platform/models/mock/server';
import { parseCommandArgs } from '../lib/args';
import { mockLlmOptions } from '../options/mock-llm';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, mockLlmOptions);
  const server = await startMockServer({ port: values.port, host: values.host, latencyMs: values['latency-ms'] });
  console.log(`scripted mock model server (NOT a real LLM) at ${server.url}`);
  console.log(`policies (the request's "model"): ${MOCK_POLICIES.join(', ')}; the method comes from the X-Pau-Method-Id header, read from Postgres.`);
  console.log(`use it from workers with PAU_MOCK_LLM_URL=${server.url}; Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  console.log(`stopped after ${server.stats.requests} requests`);
  return 0;
}

// How to reach Temporal, for clients and workers alike: local dev server, a self-hosted cluster, or
// Temporal Cloud (TEMPORAL_API_KEY or TEMPORAL_TLS turn TLS on).
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { env } from './env';
import { temporalAddress } from './services';

function connectionOptions() {
  const e = env();
  const tls = e.TEMPORAL_TLS || e.TEMPORAL_API_KEY !== undefined;
  return {
    address: temporalAddress(),
    ...(tls ? { tls: true as const } : {}),
    ...(e.TEMPORAL_API_KEY ? { apiKey: e.TEMPORAL_API_KEY } : {}),
  };
}

export async function connectClient(): Promise<Client> {
  const connection = await Connection.connect(connectionOptions());
  return new Client({ connection, namespace: env().TEMPORAL_NAMESPACE });
}

export function connectWorker(): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions());
}

// How to reach Temporal, for clients and workers alike: local dev server, a self-hosted cluster, or
// Temporal Cloud (TEMPORAL_API_KEY or TEMPORAL_TLS turn TLS on).
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { env } from './env';
import { temporalDataConverter } from './payloadCodec';
import { requireServices } from './serviceProbe';
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

/** Fails in milliseconds with a ServiceDownError when nothing listens there (grpc-js would wait ~15 s). */
export async function connectClient(): Promise<Client> {
  await requireServices(['temporal']);
  const connection = await Connection.connect(connectionOptions());
  return clientFor(connection);
}

/**
 * A client on a connection: with the payload codec (config/payloadCodec.ts), so what it writes is
 * encrypted, and what it reads is decrypted (plain payloads of histories that predate the codec pass).
 */
export function clientFor(connection: Connection, namespace = env().TEMPORAL_NAMESPACE): Client {
  return new Client({ connection, namespace, dataConverter: temporalDataConverter('pass') });
}

export function connectWorker(): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions());
}

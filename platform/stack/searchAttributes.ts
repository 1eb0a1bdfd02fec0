// Registers the project's search attributes on the namespace when missing: on a self-hosted cluster,
// and on a local dev server started before an attribute was added. Temporal Cloud refuses this API
// (attributes are managed in its UI or tcld): then it says which ones to add.
import proto from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_NAMES } from '../../domain/temporal/searchAttributes';

export async function ensureSearchAttributes(client: Client): Promise<{ added: string[]; missing: string[] }> {
  const namespace = client.options.namespace;
  const listed = await client.connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set(Object.keys(listed.customAttributes ?? {}));
  const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !have.has(n));
  if (missing.length === 0) return { added: [], missing: [] };
  const keyword = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  try {
    await client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, keyword])),
    });
    return { added: missing, missing: [] };
  } catch {
    return { added: [], missing };
  }
}

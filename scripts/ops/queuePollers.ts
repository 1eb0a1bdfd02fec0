// Who polls a task queue: Temporal's DescribeTaskQueue lists the workers that polled its workflow tasks, each
// with when it last did. A worker long-polls about once a minute, and the server keeps a poller listed for
// minutes after it has gone, so only one seen within POLLER_RECENT_MS counts as there now.
import type { Client } from '@temporalio/client';
// @temporalio/proto is CommonJS without named ESM exports: take the namespace from the default export.
import proto from '@temporalio/proto';

/** A poll within this long counts as a worker polling now (a live one polls at least every minute or so). */
export const POLLER_RECENT_MS = 90_000;

/** The identities of the workers that polled `taskQueue`'s workflow tasks within POLLER_RECENT_MS. */
export async function workflowPollers(client: Client, taskQueue: string, now = Date.now()): Promise<string[]> {
  const r = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (r.pollers ?? [])
    .filter((p) => {
      const s = p.lastAccessTime?.seconds;
      return s != null && now - Number(s.toString()) * 1000 <= POLLER_RECENT_MS;
    })
    .map((p) => p.identity ?? '?');
}

// The three task queues. Workflows and workers import names from here only, so a rename is one edit.
export const TASK_QUEUES = {
  /** All workflows; Postgres and LLM activities. */
  main: 'pau',
  /** Untrusted Python execution. One worker per CPU node. */
  sandbox: 'pau-sandbox',
  /** Training steps, checkpoint export, local inference. One worker per GPU node. */
  gpu: 'pau-gpu',
} as const;

export type TaskQueueName = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];

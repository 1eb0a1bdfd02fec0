// The workers build their workflow bundle in a child process (workers/workflowBundle.ts, for memory); it
// must be the code the in-process bundler makes, which the recorded histories replay on (replay.test.ts).
import { expect, it } from 'vitest';
import { bundleWorkflowsInChild } from '../../workers/workflowBundle';
import { workflowBundle } from '../helpers/workers';

it('the bundle built in a child process is the in-process bundle', async () => {
  const [child, inProcess] = await Promise.all([bundleWorkflowsInChild(), workflowBundle()]);
  expect('code' in child && child.code).toBe(inProcess.code);
}, 120_000);

// The `pau` CLI: `npm run pau -- <verb> ...`. Each verb lives in scripts/commands/<verb>.ts and exports
// `run(argv)` and `usage`; they are loaded lazily so one verb's dependencies never slow another.
import { ConfigError, env } from '../config/env';
import { UsageError } from './lib/args';

interface Command {
  run(argv: string[]): Promise<number>;
  usage: string;
}

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  start: { summary: 'setup, stack, workers, then the main job; keeps the UI up until Ctrl-C (--once exits)', load: () => import('./commands/start') },
  stack: { summary: 'up|down|status of the local Temporal dev server and Postgres', load: () => import('./commands/stack') },
  workers: { summary: 'run workers for all queues, or --queue pau|pau-sandbox|pau-gpu', load: () => import('./commands/workers') },
  doctor: { summary: 'run the doctor workflow: one activity on each queue, pass/fail table', load: () => import('./commands/doctor') },
  sandbox: { summary: 'exec a Python method in the sandbox', load: () => import('./commands/sandbox') },
  report: {
    summary: 'write reports/<runId>.html and .json for a run and print its headline table (--compare <runId>)',
    load: () => import('./commands/report'),
  },
  calibrate: {
    summary: 'calibration suite independent of any judge: code match of the original, its mutants, constant and identity functions (--dataset --split --limit)',
    load: () => import('./commands/calibrate'),
  },
  judge: {
    summary: 're-judge a stored run with a judge model (--run <runId> --judge-model <model>); agents are not rerun',
    load: () => import('./commands/judge'),
  },
  dataset: { summary: 'build|show|export|list the PAU method set (BuildDatasetWorkflow)', load: () => import('./commands/dataset') },
  bench: {
    summary: 'run a benchmark (--dataset --split --models --settings [--limit] [--samples]) with live progress; status RUN_ID; models',
    load: () => import('./commands/bench'),
  },
  sft: {
    summary: 'SFT: build --teacher M (judged teacher episodes -> examples) | export NAME --out F | train --data NAME --base M | show NAME',
    load: () => import('./commands/sft'),
  },
  grpo: {
    summary: 'AAC-GRPO: train --base M [--critic M] --split train (epochs of rollouts, critic step rewards, update, checkpoint, eval) | report RUN',
    load: () => import('./commands/grpo'),
  },
  schedule: { summary: 'nightly benchmark Schedules: nightly|list|describe|pause|unpause|trigger|delete|backfill', load: () => import('./commands/schedule') },
  runs: { summary: 'list [--failed] runs, or show RUN_ID with its episodes by status and UI links', load: () => import('./commands/runs') },
  rerun: {
    summary: 'reset a failed WORKFLOW_ID to before its failure, or --run RUN_ID --failed to rerun failed episodes',
    load: () => import('./commands/rerun'),
  },
  models: { summary: 'install|serve|stop|status the local models (llama.cpp servers of real small LLMs)', load: () => import('./commands/models') },
  'codec-server': {
    summary: "the codec endpoint for your Web UI and CLI (decrypts payloads; token-protected; --print-url for the UI's Data Encoder setting)",
    load: () => import('./commands/codec-server'),
  },
  'mock-llm': {
    summary: 'start the scripted mock model server alone (an OpenAI-compatible endpoint; not a real LLM)',
    load: () => import('./commands/mock-llm'),
  },
};

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return ['usage: npm run pau -- <verb> [options]', '', ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === 'help' || verb === '--help' || verb === '-h') {
    console.log(help());
    return verb ? 0 : 2;
  }
  const entry = COMMANDS[verb];
  if (!entry) {
    console.error(`pau: unknown verb ${JSON.stringify(verb)}\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  try {
    env(); // fail fast on a bad configuration, naming the variable
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`pau ${verb}: ${err.message}\nusage: ${command.usage}`);
      return 2;
    }
    if (err instanceof ConfigError) {
      console.error(`pau: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`pau: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);

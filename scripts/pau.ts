// The `pau` CLI: `npm run pau -- <verb> ...`. Each verb lives in scripts/commands/<verb>.ts and exports
// `run(argv)`; its forms and option tables live in scripts/options/<verb>.ts (`verb`), which give its usage
// and `--help`. Both are loaded lazily so one verb's dependencies never slow another, and `--help` loads
// only the tables.
import { ConfigError, env } from '../config/env';
import { downServices, EXIT_SERVICE_DOWN, serviceDownLine, type StackService, stackDownIn } from '../config/serviceProbe';
import { UsageError } from './lib/args';
import { EXIT_NOT_FOUND, NotFoundError } from './lib/notFound';
import { helpText, usageText, type VerbUsage } from './lib/options';

interface Command {
  run(argv: string[]): Promise<number>;
}

const BOTH: StackService[] = ['temporal', 'postgres'];
const PG: StackService[] = ['postgres'];
const TEMPORAL: StackService[] = ['temporal'];
const NONE: StackService[] = [];
/** `needs` for a verb whose actions differ: the services of `argv[0]`'s action, else of the rest. */
const byAction =
  (actions: Record<string, StackService[]>, otherwise: StackService[]) =>
  (argv: string[]): StackService[] =>
    actions[argv[0] ?? ''] ?? otherwise;

/**
 * Every verb, its one-line summary and what it needs running: `needs` (default none) is checked before the
 * verb is even loaded, so a verb run while the stack is down exits 3 in milliseconds with one line saying
 * which service is not running and how to start it (docs/cli.md). `start` and `stack up` start the stack
 * themselves; `workers` checks in runWorkers (its entry points are also run without this CLI).
 */
const COMMANDS: Record<
  string,
  { summary: string; needs?: (argv: string[]) => StackService[]; load: () => Promise<Command>; options: () => Promise<{ verb: VerbUsage }> }
> = {
  start: {
    summary: 'setup, stack, workers, then the main job; keeps the UI up until Ctrl-C (--once exits)',
    load: () => import('./commands/start'),
    options: () => import('./options/start'),
  },
  stack: {
    summary: 'up|down|status of the local Temporal dev server and Postgres',
    load: () => import('./commands/stack'),
    options: () => import('./options/stack'),
  },
  workers: {
    needs: (argv) => (argv.includes('--queue') && argv.every((a) => a === '--queue' || a === 'pau-sandbox') ? TEMPORAL : BOTH),
    summary: 'run workers for all queues, or --queue pau|pau-sandbox|pau-gpu',
    load: () => import('./commands/workers'),
    options: () => import('./options/workers'),
  },
  doctor: {
    needs: () => TEMPORAL,
    summary: 'run the doctor workflow: one activity on each queue, pass/fail table',
    load: () => import('./commands/doctor'),
    options: () => import('./options/doctor'),
  },
  sandbox: { summary: 'exec a Python method in the sandbox', load: () => import('./commands/sandbox'), options: () => import('./options/sandbox') },
  report: {
    needs: () => PG,
    summary: 'write reports/<runId>.html and .json for a run and print its headline table (--compare <runId>)',
    load: () => import('./commands/report'),
    options: () => import('./options/report'),
  },
  export: {
    needs: () => PG,
    summary: 'inspect <runId> [--out DIR]: a benchmark run as inspect_ai eval logs (one per model x setting) for `inspect view`',
    load: () => import('./commands/export'),
    options: () => import('./options/export'),
  },
  calibrate: {
    // The retired `calibrate ladder` refuses (exit 2) whether or not the stack is up.
    needs: (argv) => (argv[0] === 'ladder' ? [] : BOTH),
    summary: 'calibration suite independent of any judge: code match of the original, its mutants, constant and identity functions (--dataset --split --limit)',
    load: () => import('./commands/calibrate'),
    options: () => import('./options/calibrate'),
  },
  judge: {
    needs: () => BOTH,
    summary: 're-judge a stored run with a judge model (--run <runId> --judge-model <model>); agents are not rerun',
    load: () => import('./commands/judge'),
    options: () => import('./options/judge'),
  },
  dataset: {
    needs: byAction({ build: BOTH }, PG),
    summary: 'build|show|export|list the PAU method set (BuildDatasetWorkflow)',
    load: () => import('./commands/dataset'),
    options: () => import('./options/dataset'),
  },
  bench: {
    needs: byAction({ run: BOTH, status: PG }, NONE),
    summary: 'run a benchmark (--dataset --split --models --settings [--limit] [--samples]) with live progress; status RUN_ID; models',
    load: () => import('./commands/bench'),
    options: () => import('./options/bench'),
  },
  sft: {
    needs: byAction({ build: BOTH, train: BOTH }, PG),
    summary: 'SFT: build --teacher M (judged teacher episodes -> examples) | export NAME --out F | train --data NAME --base M | show NAME',
    load: () => import('./commands/sft'),
    options: () => import('./options/sft'),
  },
  grpo: {
    needs: byAction({ train: BOTH }, PG),
    summary: 'AAC-GRPO: train --base M [--critic M] --split train (epochs of rollouts, critic step rewards, update, checkpoint, eval) | report RUN',
    load: () => import('./commands/grpo'),
    options: () => import('./options/grpo'),
  },
  schedule: {
    needs: () => TEMPORAL,
    summary: 'nightly benchmark Schedules: nightly|list|describe|pause|unpause|trigger|delete|backfill',
    load: () => import('./commands/schedule'),
    options: () => import('./options/schedule'),
  },
  runs: {
    needs: byAction({ cancel: BOTH }, PG),
    summary: 'list [--failed] runs, or show RUN_ID with its episodes by status and UI links',
    load: () => import('./commands/runs'),
    options: () => import('./options/runs'),
  },
  rerun: {
    needs: () => BOTH,
    summary: 'reset a failed WORKFLOW_ID to before its failure, or --run RUN_ID --failed to rerun failed episodes',
    load: () => import('./commands/rerun'),
    options: () => import('./options/rerun'),
  },
  models: {
    summary: 'install|serve|stop|status the local models (llama.cpp servers of real small LLMs)',
    load: () => import('./commands/models'),
    options: () => import('./options/models'),
  },
  'codec-server': {
    summary: "the codec endpoint for your Web UI and CLI (decrypts payloads; token-protected; --print-url for the UI's Codec Server setting)",
    load: () => import('./commands/codec-server'),
    options: () => import('./options/codec-server'),
  },
  'mock-llm': {
    summary: 'start the scripted mock model server alone (an OpenAI-compatible endpoint; not a real LLM)',
    load: () => import('./commands/mock-llm'),
    options: () => import('./options/mock-llm'),
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
  if (rest.includes('--help') || rest.includes('-h')) {
    // The verb's usage, its summary and each option with its help, from the tables it parses with.
    console.log(`pau ${verb}: ${entry.summary}\n\n${helpText((await entry.options()).verb)}`);
    return 0;
  }
  try {
    env(); // fail fast on a bad configuration, naming the variable
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`pau: ${err.message}`);
    return 2;
  }
  const needed = entry.needs?.(rest) ?? [];
  // Both probed (a few ms on loopback), so the line names every part of the stack that is down.
  const down = needed.length > 0 ? await downServices(BOTH) : [];
  if (down.some((d) => needed.includes(d.service))) {
    console.error(`pau ${verb}: ${serviceDownLine(down)}`);
    return EXIT_SERVICE_DOWN;
  }
  const command = await entry.load();
  try {
    return await command.run(rest);
  } catch (err) {
    // A service that went away after the check above, or one a verb reached without declaring it.
    const gone = await stackDownIn(err);
    if (gone) {
      console.error(`pau ${verb}: ${serviceDownLine(gone)}`);
      return EXIT_SERVICE_DOWN;
    }
    if (err instanceof UsageError) {
      console.error(`pau ${verb}: ${err.message}\nusage: ${usageText((await entry.options()).verb)}\n(npm run pau -- ${verb} --help lists the options)`);
      return 2;
    }
    if (err instanceof ConfigError) {
      console.error(`pau: ${err.message}`);
      return 2;
    }
    if (err instanceof NotFoundError) {
      console.error(`pau ${verb}: ${err.message}`);
      return EXIT_NOT_FOUND;
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

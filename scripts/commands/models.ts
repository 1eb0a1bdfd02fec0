// `pau models install|serve|stop|status [NAME...]`: the local models (docs/models.md).
import { fmtBytes, installModel, modelState } from '../../platform/models/local/install';
import { ensureRuntime } from '../../platform/models/local/runtime';
import { localServers, planFor, startLocalServer, stopLocalServer } from '../../platform/models/local/server';
import { modelsDir } from '../../config/env';
import { LOCAL_MODELS } from '../../domain/llm/localModels';
import { models } from '../../config/models';
import { parseCommandArgs, UsageError } from '../lib/args';
import { modelsOptions } from '../options/models';
import { progressLine } from '../../platform/stack/progressLine';
import { printTable } from '../../domain/report/table';
import { localModelsInUse, resolveLocalName } from '../client/localModels';

function resolve(names: string[]): string[] {
  try {
    return names.map(resolveLocalName);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function install(names: string[], force: boolean): Promise<number> {
  const shorts =
    names.length === 0
      ? LOCAL_MODELS.map((m) => m.short)
      : resolve(names).map((n) => {
          const spec = models().get(n);
          if (spec.modelPath) throw new UsageError(`${n} is a model file of your own (${spec.modelPath}); only built-in models are installed`);
          return spec.model;
        });
  console.log(`models directory: ${modelsDir()}`);
  const rows: string[][] = [];
  for (const short of shorts) {
    const line = progressLine();
    const r = await installModel(short, {
      force,
      progress: (t) => line.update(t),
      log: (t) => {
        line.done();
        console.log(t);
      },
    });
    line.done();
    rows.push([short, r.outcome, fmtBytes(r.bytes), `${r.seconds.toFixed(1)} s`, r.file]);
  }
  printTable(['model', 'result', 'size', 'time', 'file'], rows);
  // The runtime that serves them is part of the install: a model turn never creates it (it only connects).
  await ensureRuntime(console.log);
  return 0;
}

async function serve(names: string[]): Promise<number> {
  const wanted = names.length > 0 ? resolve(names) : localModelsInUse();
  if (wanted.length === 0) {
    console.log('no local model is in use by the configuration; name one, e.g. `pau models serve qwen2.5-coder-0.5b`');
    return 0;
  }
  for (const n of wanted) {
    const line = progressLine();
    const result = await startLocalServer(models().get(n), {
      progress: (t) => line.update(t),
      log: (t) => {
        line.done();
        console.log(t);
      },
    });
    line.done();
    console.log(`${n}: ${result} on 127.0.0.1:${planFor(models().get(n)).port}`);
  }
  return 0;
}

async function stop(names: string[]): Promise<number> {
  const running = await localServers();
  const slugs = names.length > 0 ? resolve(names).map((n) => planFor(models().get(n)).slug) : running.map((s) => s.slug);
  if (slugs.length === 0) console.log('no local model server was started from this state dir');
  for (const slug of slugs) console.log(`${running.find((s) => s.slug === slug)?.name ?? slug}: ${await stopLocalServer(slug)}`);
  return 0;
}

async function status(): Promise<number> {
  const servers = await localServers();
  const rows: string[][] = [];
  for (const name of models()
    .names()
    .filter((n) => models().get(n).provider === 'local')) {
    const spec = models().get(name);
    const plan = planFor(spec);
    const file = spec.modelPath ? plan.modelPath : (await modelState(spec.model)).state;
    const s = servers.find((x) => x.slug === plan.slug);
    rows.push([
      name,
      spec.modelPath ? 'own file' : file,
      s?.state ?? 'down',
      `127.0.0.1:${plan.port}`,
      s?.pid ? String(s.pid) : '-',
      `${plan.threads}t ${plan.parallel}×${plan.ctxPerSlot}${plan.lora.length ? ` +${plan.lora.length} LoRA` : ''}`,
    ]);
  }
  console.log(`models directory: ${modelsDir()}`);
  printTable(['model', 'file', 'server', 'address', 'pid', 'threads slots×ctx'], rows);
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseCommandArgs(rest, modelsOptions);
  switch (action) {
    case 'install':
      return install(positionals, values.force ?? false);
    case 'serve':
      return serve(positionals);
    case 'stop':
      return stop(positionals);
    case 'status':
      return status();
    default:
      throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
  }
}

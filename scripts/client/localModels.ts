// Which local models the configuration uses: the models `npm start` benchmarks and the judge it would
// choose for them (`stack up` starts their servers; `models serve` without names serves them).
import { models, startModels } from '../../config/models';
import { chooseJudge } from './judgeChoice';

export function localModelsInUse(): string[] {
  const { names } = startModels();
  const judge = chooseJudge(names).judgeModel;
  const all = [...new Set([...names, ...(judge ? [judge] : [])])];
  return all.filter((n) => models().get(n).provider === 'local');
}

/** A model argument: a registry name (`local/qwen2.5-coder-0.5b`) or a built-in's short name. */
export function resolveLocalName(arg: string): string {
  const reg = models();
  for (const name of [arg, `local/${arg}`]) {
    if (reg.has(name) && reg.get(name).provider === 'local') return name;
  }
  const known = reg.names().filter((n) => reg.get(n).provider === 'local');
  throw new Error(`${JSON.stringify(arg)} is not a local model; local models: ${known.join(', ')}`);
}

// `pau stack up|down|status`
import { UsageError } from '../lib/args';
import { printTable } from '../../domain/report/table';
import { stackDown, stackStatus, stackUp } from '../../platform/stack/stack';
import { localModelsInUse } from '../client/localModels';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  switch (action) {
    case 'up':
      await stackUp(console.log, { localModels: localModelsInUse() });
      return 0;
    case 'down':
      await stackDown();
      return 0;
    case 'status': {
      const rows = await stackStatus();
      printTable(
        ['part', 'state', 'managed', 'where'],
        rows.map((r) => [r.part, r.state, r.managed ? 'local' : 'external', r.where]),
      );
      return rows.every((r) => r.state === 'up') ? 0 : 1;
    }
    default:
      throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
  }
}

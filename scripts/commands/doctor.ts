// `pau doctor`: one activity on each queue; prints a pass/fail table; exits 1 naming the failing parts.
import { connectClient } from '../../config/temporal';
import { UsageError } from '../lib/args';
import { formatDoctor, runDoctor } from '../client/doctor';

export async function run(argv: string[]): Promise<number> {
  if (argv.length > 0) throw new UsageError(`unexpected arguments: ${argv.join(' ')}`);
  const client = await connectClient();
  try {
    const report = await runDoctor(client);
    console.log(formatDoctor(report));
    console.log(`workflow: ${report.workflowId}  ${report.uiLink}`);
    if (!report.ok) {
      console.error(
        `doctor: FAILED: ${report.results
          .filter((r) => !r.ok)
          .map((r) => r.part)
          .join(', ')}`,
      );
      return 1;
    }
    console.log('doctor: all parts pass');
    return 0;
  } finally {
    await client.connection.close();
  }
}

// A disposable worker stand-in for trainerOrphan.test.ts: runs one trainer job through the workers' own
// spawn path (runTrainerProcess) and prints every trainer event as a JSON line, so the test can SIGKILL this
// process at a chosen moment. Usage: node --import tsx test/training/trainerParent.ts COMMAND SPEC_FILE
import { runTrainerProcess } from '../../activities/training/trainerProcess';
import { TRAINER_COMMANDS, type TrainerCommand } from '../../domain/training/trainerProtocol';

const [command, specFile] = process.argv.slice(2);
if (!TRAINER_COMMANDS.includes(command as TrainerCommand) || !specFile) throw new Error('usage: trainerParent.ts COMMAND SPEC_FILE');
const r = await runTrainerProcess(command as TrainerCommand, specFile, {
  env: { PAU_TRAINER_THREADS: '1' },
  onEvent: (e) => console.log(JSON.stringify(e)),
});
console.log(JSON.stringify({ exit: r.exitCode, signal: r.signal }));

// Activities served by workers on the `pau` queue (Postgres and LLM work). Each domain contributes a
// factory; dependencies are injected so tests can pass their own database.
import { getDb, type Db } from '../db/client';
import { makeCheckDatabase, makeRecordDoctorResults } from './doctor/checkDatabase';
import { createDatasetMainActivities } from './dataset/index';
import { createBenchActivities } from './bench/index';
import { createEpisodeActivities } from './episode/index';
import { createJudgeActivities } from './judge/activities';
import { createDescribeActivities } from './describe/activities';
import { createOpsActivities } from './ops/index';
import { createCalibrationActivities } from './calibration/activities';
import { createLadderActivities } from './calibration/ladder';
import { createContradictionActivities } from './judge/contradiction';
import { createJudgeCardActivities } from './judge/card';
import { createCheckpointActivities } from './training/checkpoints';
import { createGrpoActivities } from './training/grpo';
import { createSftDataActivities } from './training/sftData';

export interface MainDeps {
  db: () => Db;
}

export function createMainActivities(deps: MainDeps = { db: getDb }) {
  return {
    checkDatabase: makeCheckDatabase(deps.db),
    recordDoctorResults: makeRecordDoctorResults(deps.db),
    ...createDatasetMainActivities(deps.db),
    ...createEpisodeActivities(deps.db),
    ...createBenchActivities(deps.db),
    ...createJudgeActivities(deps.db),
    ...createDescribeActivities(deps.db),
    ...createOpsActivities(deps.db),
    ...createCalibrationActivities(deps.db),
    ...createLadderActivities(deps.db),
    ...createContradictionActivities(deps.db),
    ...createJudgeCardActivities(deps.db),
    ...createSftDataActivities(deps.db),
    ...createCheckpointActivities(deps.db),
    ...createGrpoActivities(deps.db),
  };
}

export type MainActivities = ReturnType<typeof createMainActivities>;

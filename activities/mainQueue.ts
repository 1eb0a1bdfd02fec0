// Activities served by workers on the `pau` queue (Postgres and LLM work). Each domain contributes a
// factory; dependencies are injected so tests can pass their own database.
import { getDb, type Db } from '../db/client';
import type { ModelEndpoints } from './llm/endpoints';
import { hostEndpoints } from './llm/hostEndpoints';
import { makeCheckDatabase, makeRecordDoctorResults } from './doctor/checkDatabase';
import { createDatasetMainActivities } from './dataset/index';
import { createBenchActivities } from './bench/index';
import { createEpisodeActivities } from './episode/index';
import { createJudgeActivities } from './judge/activities';
import { createDescribeActivities } from './describe/activities';
import { createOpsActivities } from './ops/index';
import { createCalibrationActivities } from './calibration/activities';
import { createContradictionActivities } from './judge/contradiction';
import { createJudgeCardActivities } from './judge/card';
import { createShippedCardActivities } from './judge/shippedCard';
import { createCheckpointActivities } from './training/checkpoints';
import { createGrpoActivities } from './training/grpo';
import { createCriticCardActivities } from './training/criticCard';
import { createOnPolicyCardActivities } from './training/onPolicyCard';
import { createSftDataActivities } from './training/sftData';

export interface MainDeps {
  db: () => Db;
  /** How model calls reach their endpoints: this host's providers (local llama.cpp, vLLM, checkpoints, remote). */
  endpoints: ModelEndpoints;
}

export function createMainActivities(deps: MainDeps = { db: getDb, endpoints: hostEndpoints }) {
  return {
    checkDatabase: makeCheckDatabase(deps.db),
    recordDoctorResults: makeRecordDoctorResults(deps.db),
    ...createDatasetMainActivities(deps.db),
    ...createEpisodeActivities(deps.db, deps.endpoints),
    ...createBenchActivities(deps.db),
    ...createJudgeActivities(deps.db, deps.endpoints),
    ...createDescribeActivities(deps.db, deps.endpoints),
    ...createOpsActivities(deps.db),
    ...createCalibrationActivities(deps.db),
    ...createContradictionActivities(deps.db, deps.endpoints),
    ...createJudgeCardActivities(deps.db, deps.endpoints),
    ...createShippedCardActivities(deps.db),
    ...createSftDataActivities(deps.db),
    ...createCheckpointActivities(deps.db),
    ...createGrpoActivities(deps.db, deps.endpoints),
    ...createCriticCardActivities(deps.db, deps.endpoints),
    ...createOnPolicyCardActivities(deps.db, deps.endpoints),
  };
}

export type MainActivities = ReturnType<typeof createMainActivities>;

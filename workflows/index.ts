// Every workflow the `pau` worker serves. This file is the worker's bundle entry: deterministic code only.
export { doctorWorkflow } from './doctor/doctorWorkflow';
export { episodeWorkflow } from './episode/episodeWorkflow';
export { benchmarkRunWorkflow } from './bench/benchmarkRunWorkflow';
export { buildDatasetWorkflow } from './dataset/buildDatasetWorkflow';
export { judgeEpisodeWorkflow } from './judge/judgeEpisodeWorkflow';
export { judgeRunWorkflow } from './judge/judgeRunWorkflow';
export { judgeCardWorkflow } from './judge/judgeCardWorkflow';
export { scheduledBenchmarkWorkflow } from './ops/scheduledBenchmarkWorkflow';
export { rerunFailedEpisodesWorkflow } from './ops/rerunFailedEpisodesWorkflow';
export { calibrationWorkflow } from './calibration/calibrationWorkflow';
export { calibrateMethodWorkflow } from './calibration/calibrateMethodWorkflow';
export { describeMethodsWorkflow } from './describe/describeMethodsWorkflow';
export { describeMethodWorkflow } from './describe/describeMethodWorkflow';
export { sftBuildWorkflow } from './training/sftBuildWorkflow';
export { sftTrainWorkflow } from './training/sftTrainWorkflow';
export { grpoWorkflow } from './training/grpoWorkflow';
export { criticCardWorkflow } from './training/criticCardWorkflow';

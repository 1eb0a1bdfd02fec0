// Preloaded by scripts/runCompiled.sh (node --require): the variables the launcher set for this Node process
// alone (PAU_NODE_ONLY_ENV, space-separated names) leave its environment before any code runs, so the
// processes it starts (the local stack, sandbox executors, llama.cpp) get the environment the user had.
// glibc read them when the process started; removing them changes nothing for this process.
for (const name of (process.env.PAU_NODE_ONLY_ENV ?? '').split(' ').filter(Boolean)) delete process.env[name];
delete process.env.PAU_NODE_ONLY_ENV;

import fs from 'node:fs';
import { SandboxPool } from '/work/sandbox-speed/activities/sandbox/index';
const pool = new SandboxPool({ size: 2 });
await pool.mode();
await Promise.all([0,1].map(()=>pool.runBatch({ source: 'def f(x):\n    return x\n', entry: 'f', calls: [['1']] })));
const kids = (pid: number): number[] => fs.readdirSync(`/proc/${pid}/task`).flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
const st=[...kids(process.pid)];
while(st.length){const p=st.pop()!; let pss='-'; try{pss=fs.readFileSync(`/proc/${p}/smaps_rollup`,'utf8').match(/Pss:\s+(\d+)/)?.[1]??'?'}catch(e){pss=String((e as Error).message).slice(0,30)}
 const s=fs.readFileSync(`/proc/${p}/status`,'utf8'); console.log(p, s.match(/Name:\s+(\S+)/)?.[1], s.match(/VmRSS:\s+(\d+)/)?.[1], pss); st.push(...kids(p));}
await pool.close();

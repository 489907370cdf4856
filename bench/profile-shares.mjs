// Where a server's CPU profile spent its busy time, in the cost classes of the /flags request:
// socket writes, hashing (SHA-1), matching (the rest of the engine), the person lookup (pg and the
// context loader), the answer's serialisation, garbage collection, and the framework (everything
// else on the request path). Module loading and schema compilation at start-up, and idle time, are
// left out. Each sample is charged to the first class (in that order) any frame of its stack is in.
//
//   node bench/profile-shares.mjs /tmp/prof/CPU.….cpuprofile [seconds]
// seconds: only the profile's last seconds (the measured window; the seeding before it is left out).
// (profiles from BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"; see README.md, `hot`)
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const lastSeconds = Number(process.argv[3] ?? 'Infinity');
const sampleTimes = [];
for (let i = 0, t = profile.startTime; i < profile.samples.length; i++) sampleTimes.push((t += profile.timeDeltas[i] ?? 0));
const from = profile.endTime - lastSeconds * 1e6;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const CLASSES = [
  ['socket write (writev)', (f) => f.functionName === 'writev' || f.functionName === 'writeBuffer' || f.functionName === 'writeUtf8String'],
  ['hashing (SHA-1)', (f) => /evaluation\/(sha1|hash)\.ts/.test(f.url)],
  ['matching (engine, conditions)', (f) => /src\/evaluation\//.test(f.url)],
  ['person lookup (pg, context)', (f) => /node_modules\/(pg|pg-pool|pg-protocol|pg-types)\/|sdk\/context\.ts|sdk\/store\.ts/.test(f.url)],
  ['serialisation (answer)', (f) => /sdk\/responses\.ts|sdk\/detail-fragments\.ts/.test(f.url)],
  ['garbage collector', (f) => f.functionName === '(garbage collector)'],
];
const startUp = (f) => /internal\/modules|tsx\/dist|esbuild\/lib|\/ajv\//.test(f.url) || f.functionName === 'compileFunction' || /compileSchemasForValidation/.test(f.functionName);
const shares = new Map();
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const micros = profile.timeDeltas[i] ?? 0;
  if (sampleTimes[i] < from) continue;
  const frames = [];
  for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) frames.push(nodes.get(id).callFrame);
  if (frames[0].functionName === '(idle)' || frames.some(startUp)) continue;
  const found = CLASSES.find(([, test]) => frames.some(test));
  const name = found ? found[0] : 'framework (fastify, http, hooks, metrics, body parsing)';
  shares.set(name, (shares.get(name) ?? 0) + micros);
  busy += micros;
}
for (const [name, micros] of [...shares].sort((a, b) => b[1] - a[1])) console.log(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}`);
console.log(`busy ${(busy / 1000).toFixed(0)} ms (start-up and idle left out)`);

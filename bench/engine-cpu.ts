/**
 * The flag engine's CPU per flag, alone (bench/lib/engine-cpu.ts), for profiling and instruction counts:
 *
 *   npx tsx bench/engine-cpu.ts [flags=1000] [evaluations=2000] [warm-up evaluations=200]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/engine-cpu.ts
 *   valgrind --tool=callgrind node --import tsx bench/engine-cpu.ts 1000 1001 0   (minus the same with 1 evaluation:
 *     the instructions of 1 000 evaluations of every flag, start-up left out)
 *
 * Prints one JSON line; `answersFingerprint` must not change with an engine change that keeps behaviour.
 */
import { measureEngine } from './lib/engine-cpu.ts';

const flags = Number(process.argv[2] ?? 1000);
const evaluations = Number(process.argv[3] ?? 2000);
const warmup = Number(process.argv[4] ?? Math.min(200, evaluations));
if (!Number.isInteger(flags) || flags <= 0 || !Number.isInteger(evaluations) || evaluations <= 0 || !Number.isInteger(warmup) || warmup < 0) {
  process.stderr.write('usage: tsx bench/engine-cpu.ts [flags] [evaluations] [warm-up evaluations]\n');
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(measureEngine(flags, evaluations, warmup))}\n`);

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OperationResult } from './measure.ts';
import { OPERATIONS, type Operation } from '../targets/target.ts';

/** One target's figures for each CRUD operation measured (BENCH_FLAG_OPERATIONS chooses; all by default). */
export type CrudResults = Partial<Record<Operation, OperationResult>>;
export type Results = CrudResults;

export interface Aim {
  aim: string;
  /** null when it cannot be judged (the peer was skipped). */
  pass: boolean | null;
  actual: string;
}

const ratio = (ours: Results, theirs: Results | null, op: Operation) => {
  const [a, b] = [ours[op], theirs?.[op]];
  return a && b ? a.requestsPerSecond / b.requestsPerSecond : null;
};

export function judgeAims(ours: Results, theirs: Results | null): Aim[] {
  const listRatio = ratio(ours, theirs, 'list');
  const createRatio = ratio(ours, theirs, 'create');
  const retrieveP99 = ours.retrieve?.latencyMs.p99 ?? null;
  return [
    {
      aim: "list ≥ 10× Unleash's admin search",
      pass: listRatio === null ? null : listRatio >= 10,
      actual: listRatio === null ? 'not measured' : `${listRatio.toFixed(1)}×`,
    },
    {
      aim: "create ≥ 4× Unleash's create",
      pass: createRatio === null ? null : createRatio >= 4,
      actual: createRatio === null ? 'not measured' : `${createRatio.toFixed(1)}×`,
    },
    {
      aim: 'Bellwether retrieve p99 < 5 ms at 10 connections',
      pass: retrieveP99 === null ? null : retrieveP99 < 5,
      actual: retrieveP99 === null ? 'not measured' : `${retrieveP99} ms`,
    },
  ];
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const latency = (m: OperationResult | undefined) => (m ? `${m.latencyMs.p50} / ${m.latencyMs.p99} ms` : '-');
const rate = (m: OperationResult | undefined) => (m ? `${Math.round(m.requestsPerSecond).toLocaleString('en-US')}${m.disturbed ? ' *' : ''}` : 'skipped');
const times = (r: number | null) => (r === null ? '-' : `${r.toFixed(1)}×`);

/**
 * The comparison as a Markdown table followed by the aims; `baseline`: another checkout of
 * Bellwether measured in the same run (its columns and this checkout's ratio to it).
 */
export function formatReport(ours: Results, theirs: Results | null, aims: Aim[], baseline: Results | null = null): string {
  const rows = [
    [
      'operation',
      'Bellwether req/s',
      ...(baseline ? ['baseline req/s', 'ours/baseline'] : []),
      'Unleash req/s',
      'ratio (ours/theirs)',
      'Bellwether p50/p99',
      ...(baseline ? ['baseline p50/p99'] : []),
      'Unleash p50/p99',
    ],
  ];
  for (const op of OPERATIONS.filter((operation) => ours[operation])) {
    rows.push([
      op,
      rate(ours[op]),
      ...(baseline ? [rate(baseline[op]), times(ratio(ours, baseline, op))] : []),
      theirs ? rate(theirs[op]) : 'skipped',
      times(ratio(ours, theirs, op)),
      latency(ours[op]),
      ...(baseline ? [latency(baseline[op])] : []),
      theirs ? latency(theirs[op]) : '-',
    ]);
  }
  const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
  const all = [ours, theirs, baseline].flatMap((results) => (results ? Object.values(results) : []));
  const foreign = all.map((m) => m.cpu?.foreignPercent ?? 0);
  const notes = [
    all.some((m) => m.cpu)
      ? `Other work on the machine during the measurements: at most ${Math.max(...foreign)}% of the cores.`
      : 'Other work on the machine was not watched (no /proc).',
    ...(all.some((m) => m.disturbed) ? ['* disturbed: other work used more than the allowed share of the cores even after retries.'] : []),
  ];
  return (
    `${table(rows)}\n${notes.join('\n')}\n\n` +
    `Aims:\n${aims.map((aim) => `  ${verdict(aim)}  ${aim.aim}: ${aim.actual}`).join('\n')}\n`
  );
}

/** Writes the run to bench/results/<name>-<YYYY-MM-DD-HHMM>[-<suffix>].json and returns the path. */
export function writeResults(directory: string, name: string, data: unknown, suffix = ''): string {
  mkdirSync(directory, { recursive: true });
  const stamp = new Date().toISOString().slice(0, 16).replace('T', '-').replace(':', '');
  const file = path.join(directory, `${name}-${stamp}${suffix ? `-${suffix}` : ''}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

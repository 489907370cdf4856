import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OperationResult } from './measure.ts';
import { OPERATIONS, type Operation } from '../targets/target.ts';

/** One target's figures for each CRUD operation. */
export type CrudResults = Record<Operation, OperationResult>;
export type Results = CrudResults;

export interface Aim {
  aim: string;
  /** null when it cannot be judged (the peer was skipped). */
  pass: boolean | null;
  actual: string;
}

const ratio = (ours: Results, theirs: Results | null, op: Operation) =>
  theirs ? ours[op].requestsPerSecond / theirs[op].requestsPerSecond : null;

export function judgeAims(ours: Results, theirs: Results | null): Aim[] {
  const listRatio = ratio(ours, theirs, 'list');
  const createRatio = ratio(ours, theirs, 'create');
  const retrieveP99 = ours.retrieve.latencyMs.p99;
  return [
    {
      aim: "list ≥ 10× Unleash's admin search",
      pass: listRatio === null ? null : listRatio >= 10,
      actual: listRatio === null ? 'peer skipped' : `${listRatio.toFixed(1)}×`,
    },
    {
      aim: "create ≥ 4× Unleash's create",
      pass: createRatio === null ? null : createRatio >= 4,
      actual: createRatio === null ? 'peer skipped' : `${createRatio.toFixed(1)}×`,
    },
    { aim: 'Bellwether retrieve p99 < 5 ms at 10 connections', pass: retrieveP99 < 5, actual: `${retrieveP99} ms` },
  ];
}

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const latency = (m: OperationResult) => `${m.latencyMs.p50} / ${m.latencyMs.p99} ms`;
const rate = (m: OperationResult) => `${Math.round(m.requestsPerSecond).toLocaleString('en-US')}${m.disturbed ? ' *' : ''}`;

/** The comparison as a Markdown table followed by the aims. */
export function formatReport(ours: Results, theirs: Results | null, aims: Aim[]): string {
  const rows = [['operation', 'Bellwether req/s', 'Unleash req/s', 'ratio (ours/theirs)', 'Bellwether p50/p99', 'Unleash p50/p99']];
  for (const op of OPERATIONS) {
    const r = ratio(ours, theirs, op);
    rows.push([
      op,
      rate(ours[op]),
      theirs ? rate(theirs[op]) : 'skipped',
      r === null ? '-' : `${r.toFixed(1)}×`,
      latency(ours[op]),
      theirs ? latency(theirs[op]) : '-',
    ]);
  }
  const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
  const all = [...Object.values(ours), ...(theirs ? Object.values(theirs) : [])];
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

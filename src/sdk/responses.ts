/**
 * The answers of `/flags` and `/decide` by version:
 *
 * - `/flags?v=2` (any v ≥ 2) and `/decide?v=4` (v ≥ 4): the detail map `{flags: {key: {key,
 *   enabled, variant, reason, metadata}}, errorsWhileComputingFlags, requestId, evaluatedAt}`.
 * - `/flags` without `v` or `v=1`: `{featureFlags: {key: value}, featureFlagPayloads,
 *   errorsWhileComputingFlags, requestId}` with every flag (false ones too).
 * - `/decide?v=3`: the same legacy shape; `v=2`: `featureFlags` of the enabled flags only;
 *   `v=1` or no `v`: `featureFlags` as the list of enabled keys.
 *
 * Payloads are the stored JSON-encoded strings (SDKs parse them). `/decide` always carries the
 * config keys (`configKeys`); `/flags` only with `config=true`.
 */
import { randomUUID } from 'node:crypto';
import { answerBuffer } from './answer-buffers.ts';
import type { Evaluation } from './evaluate.ts';
import { flagValue } from './evaluate.ts';

/**
 * The remote-config keys posthog-js reads from `/flags?config=true` and `/decide`, kept minimal:
 * Bellwether serves flags, surveys (the posthog-js feed) and events, not session recording, heatmaps, site apps or the toolbar,
 * so those are off and the client does not ask for them.
 */
export function configKeys(): Record<string, unknown> {
  return {
    config: { enable_collect_everything: true },
    supportedCompression: ['gzip', 'gzip-js'],
    isAuthenticated: false,
    toolbarParams: {},
    sessionRecording: false,
    heatmaps: false,
    surveys: true,
    siteApps: [],
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    elementsChainAsString: true,
  };
}

const FLAGS_HEAD = Buffer.from('{"flags":{');
const CONFIG_FLAGS_HEAD = Buffer.from(`{${JSON.stringify(configKeys()).slice(1, -1)},"flags":{`);
const COMMA = 0x2c;

/**
 * The detail-map answer as UTF-8 JSON: config keys (when asked), `flags` from each flag's rendered
 * entry (see detail-fragments.ts), then the request's own fields: the text `JSON.stringify` makes of
 * `{...config, flags, errorsWhileComputingFlags, requestId, evaluatedAt}` (flags in the view's order;
 * an object would move integer-like keys first).
 */
function detailBody(evaluation: Evaluation, config: boolean): Buffer {
  const head = config ? CONFIG_FLAGS_HEAD : FLAGS_HEAD;
  // ASCII only: one byte per character.
  const tail = `},"errorsWhileComputingFlags":${evaluation.errors},"requestId":"${randomUUID()}","evaluatedAt":${Date.now()}}`;
  const flags = evaluation.flags;
  const entries = new Array<Buffer>(flags.length);
  let size = head.length + tail.length + Math.max(flags.length - 1, 0);
  for (let i = 0; i < flags.length; i++) {
    const entry = flags[i].live.detail.entry(flags[i].result);
    entries[i] = entry;
    size += entry.length;
  }
  const body = answerBuffer(size);
  // `Uint8Array#set` is a plain memory copy; `Buffer#copy` checks its arguments in JS at every call.
  body.set(head, 0);
  let offset = head.length;
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) body[offset++] = COMMA;
    const entry = entries[i];
    body.set(entry, offset);
    offset += entry.length;
  }
  body.write(tail, offset, 'latin1');
  return body;
}

function values(evaluation: Evaluation, enabledOnly: boolean): Record<string, boolean | string> {
  const map: Record<string, boolean | string> = {};
  for (const { live, result } of evaluation.flags) if (!enabledOnly || result.enabled) map[live.record.key] = flagValue(result);
  return map;
}

function payloads(evaluation: Evaluation): Record<string, string> {
  const map: Record<string, string> = {};
  for (const { live, result } of evaluation.flags) if (result.payload !== null) map[live.record.key] = result.payload;
  return map;
}

const withConfig = (body: Record<string, unknown>, config: boolean) => (config ? { ...configKeys(), ...body } : body);

/** The JSON of an answer: text, or UTF-8 bytes for the detail map. */
export type JsonBody = string | Buffer;

/** `POST /flags`. */
export function flagsJson(evaluation: Evaluation, version: number | null, config: boolean): JsonBody {
  if (version !== null && version >= 2) return detailBody(evaluation, config);
  const common = { errorsWhileComputingFlags: evaluation.errors, requestId: randomUUID() };
  return JSON.stringify(withConfig({ featureFlags: values(evaluation, false), featureFlagPayloads: payloads(evaluation), ...common }, config));
}

/** `POST /decide` (always with the config keys). */
export function decideJson(evaluation: Evaluation, version: number | null): JsonBody {
  const v = version ?? 1;
  if (v >= 4) return detailBody(evaluation, true);
  const common = { errorsWhileComputingFlags: evaluation.errors, requestId: randomUUID() };
  if (v === 3) return JSON.stringify(withConfig({ featureFlags: values(evaluation, false), featureFlagPayloads: payloads(evaluation), ...common }, true));
  if (v === 2) return JSON.stringify(withConfig({ featureFlags: values(evaluation, true), ...common }, true));
  const enabled = evaluation.flags.filter(({ result }) => result.enabled).map(({ live }) => live.record.key);
  return JSON.stringify(withConfig({ featureFlags: enabled, ...common }, true));
}

/**
 * The answers of `/flags` and `/decide` by version (reference §7.1, sdk-contract §3.1b):
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
import type { Evaluation } from './evaluate.ts';
import { flagValue } from './evaluate.ts';

/**
 * The remote-config keys posthog-js reads from `/flags?config=true` and `/decide`, kept minimal:
 * Bellwether serves flags (and events), not session recording, heatmaps, site apps or the toolbar,
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
    surveys: false,
    siteApps: [],
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    elementsChainAsString: true,
  };
}

function detailMap(evaluation: Evaluation): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const { live, result } of evaluation.flags) {
    flags[live.record.key] = {
      key: live.record.key,
      enabled: result.enabled,
      variant: result.variant,
      reason: result.reason,
      metadata: {
        id: live.record.id,
        version: live.record.version,
        description: live.record.name === '' ? null : live.record.name,
        payload: result.payload,
      },
    };
  }
  return flags;
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

/** `POST /flags`. */
export function flagsBody(evaluation: Evaluation, version: number | null, config: boolean): Record<string, unknown> {
  const common = { errorsWhileComputingFlags: evaluation.errors, requestId: randomUUID() };
  if (version !== null && version >= 2) {
    return withConfig({ flags: detailMap(evaluation), ...common, evaluatedAt: Date.now() }, config);
  }
  return withConfig({ featureFlags: values(evaluation, false), featureFlagPayloads: payloads(evaluation), ...common }, config);
}

/** `POST /decide` (always with the config keys). */
export function decideBody(evaluation: Evaluation, version: number | null): Record<string, unknown> {
  const common = { errorsWhileComputingFlags: evaluation.errors, requestId: randomUUID() };
  const v = version ?? 1;
  if (v >= 4) return withConfig({ flags: detailMap(evaluation), ...common, evaluatedAt: Date.now() }, true);
  if (v === 3) return withConfig({ featureFlags: values(evaluation, false), featureFlagPayloads: payloads(evaluation), ...common }, true);
  if (v === 2) return withConfig({ featureFlags: values(evaluation, true), ...common }, true);
  const enabled = evaluation.flags.filter(({ result }) => result.enabled).map(({ live }) => live.record.key);
  return withConfig({ featureFlags: enabled, ...common }, true);
}

/**
 * One flag's entry in the `/flags?v=2` detail map, `"key":{key, enabled, variant, reason,
 * metadata}`, as JSON text. The key and metadata are fixed for a flag version and a flag takes
 * only a few outcomes (enabled, variant, reason; the payload follows from them), so each outcome's
 * text is rendered once per flag version, kept as UTF-8 bytes, and copied into every answer after
 * (writing a large string to a socket costs several times more than writing its bytes).
 */
import type { FlagResult } from '../evaluation/index.ts';
import type { FlagRecord } from '../flags/record.ts';

interface Outcome {
  enabled: boolean;
  variant: string | null;
  code: string;
  conditionIndex: number | null;
  payload: string | null;
  bytes: Buffer;
}

/** Past this many outcomes (holdout variants, many condition sets) entries are rendered without keeping them. */
const MAX_OUTCOMES = 32;

export class DetailFragments {
  private readonly outcomes: Outcome[] = [];
  /**
   * The engine hands out one result object per outcome of a flag (PreparedFlag.result): found by
   * identity first, in these two lists side by side (a flag has a few outcomes: a scan of them
   * costs less than a Map lookup).
   */
  private readonly results: FlagResult[] = [];
  private readonly entries: Buffer[] = [];

  constructor(private readonly record: FlagRecord) {}

  /** The entry for this result, `"key":{…}`, in UTF-8. */
  entry(result: FlagResult): Buffer {
    const results = this.results;
    for (let i = 0; i < results.length; i++) if (results[i] === result) return this.entries[i];
    const bytes = this.entryOf(result);
    if (results.length < MAX_OUTCOMES) {
      results.push(result);
      this.entries.push(bytes);
    }
    return bytes;
  }

  private entryOf(result: FlagResult): Buffer {
    const { enabled, variant, reason, payload } = result;
    for (const outcome of this.outcomes) {
      if (
        outcome.enabled === enabled &&
        outcome.variant === variant &&
        outcome.code === reason.code &&
        outcome.conditionIndex === reason.condition_index &&
        outcome.payload === payload
      ) {
        return outcome.bytes;
      }
    }
    const bytes = Buffer.from(this.render(result));
    if (this.outcomes.length < MAX_OUTCOMES) {
      this.outcomes.push({ enabled, variant, code: reason.code, conditionIndex: reason.condition_index, payload, bytes });
    }
    return bytes;
  }

  private render(result: FlagResult): string {
    const record = this.record;
    const detail = {
      key: record.key,
      enabled: result.enabled,
      variant: result.variant,
      reason: { code: result.reason.code, condition_index: result.reason.condition_index, description: result.reason.description },
      metadata: {
        id: record.id,
        version: record.version,
        description: record.name === '' ? null : record.name,
        payload: result.payload,
      },
    };
    return `${JSON.stringify(record.key)}:${JSON.stringify(detail)}`;
  }
}

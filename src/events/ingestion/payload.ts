import type { IncomingEvent } from '../types.ts';
import { tooLarge } from '../../public/errors.ts';
import { invalidField } from './errors.ts';
import { INGESTION_LIMITS } from './limits.ts';
import { storableString, storableValue } from '../../kernel/http/storable-text.ts';
import { inRange, parseTimestamp, resolveEventTime } from './timestamps.ts';
import { canonicalUuid, uuidv7 } from './uuid.ts';
import { validationError } from '../../kernel/errors.ts';

type Json = Record<string, unknown>;
type Path = (string | number)[];

/** The query parameters ingestion reads (the first value when one is repeated). */
export interface IngestionQuery {
  /** posthog-js: the request's send time in epoch ms (`sent_at` on POST, `_` on GET). */
  sent_at?: string;
  _?: string;
}

/** A decoded body taken apart: where its events are and the batch-level send time. */
export interface Envelope {
  items: unknown[];
  /** The place of the events in the body, for error attrs: `['batch']`, or `[]` for an array. */
  path: Path;
  /** A single event object as the whole body: its errors name its fields without an index. */
  single: boolean;
  /** `sent_at` of the body (batch level), as sent. */
  sentAt: unknown;
  querySentAt: number | null;
  needsSanitizing: boolean;
  /** Characters of the JSON text the body was parsed from (no event can be longer). */
  jsonLength: number;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The three shapes the SDKs send: `{batch: [...]}`, `[...]`, or one event. */
export function readEnvelope(payload: unknown, query: IngestionQuery, needsSanitizing: boolean, jsonLength = 0): Envelope {
  let items: unknown[];
  let path: Path = [];
  let single = false;
  let sentAt: unknown;
  if (Array.isArray(payload)) {
    items = payload;
  } else if (isObject(payload) && 'batch' in payload) {
    if (!Array.isArray(payload.batch)) throw invalidField('"batch" must be a list of events.', ['batch'], 'not_a_list');
    items = payload.batch;
    path = ['batch'];
    sentAt = payload.sent_at;
  } else if (isObject(payload)) {
    items = [payload];
    single = true;
    sentAt = payload.sent_at;
  } else {
    throw validationError('The body must be an event object, a list of events, or {"api_key": …, "batch": [events]}.');
  }
  if (items.length > INGESTION_LIMITS.maxEvents) {
    throw tooLarge(`A request may carry at most ${INGESTION_LIMITS.maxEvents} events; this one has ${items.length}. Send them in smaller batches.`);
  }
  const querySent = query.sent_at ?? query._;
  return {
    items,
    path,
    single,
    sentAt,
    querySentAt: querySent === undefined ? null : parseTimestamp(querySent),
    needsSanitizing,
    jsonLength,
  };
}

function timeField(value: unknown, path: Path, name: string): number | null {
  if (value === undefined || value === null || value === '') return null;
  const ms = parseTimestamp(value);
  if (ms === null) {
    throw invalidField(
      `"${name}" is not a valid time: send an ISO 8601 date-time (e.g. 2024-05-01T12:00:00.000Z) or epoch milliseconds.`,
      path,
    );
  }
  return ms;
}

function distinctIdOf(event: Json, properties: Json, at: Path): string {
  const candidates: [unknown, Path][] = [
    [event.distinct_id, [...at, 'distinct_id']],
    [event.$distinct_id, [...at, '$distinct_id']],
    [properties.distinct_id, [...at, 'properties', 'distinct_id']],
    [properties.$distinct_id, [...at, 'properties', '$distinct_id']],
  ];
  const found = candidates.find(([value]) => value !== undefined && value !== null);
  if (!found) throw invalidField('The event has no distinct_id: every event needs the id of the user (or device) it is about.', [...at, 'distinct_id'], 'required');
  const [value, path] = found;
  let id: string;
  if (typeof value === 'string') id = value;
  else if (typeof value === 'number' && Number.isFinite(value)) id = String(value);
  else throw invalidField('distinct_id must be a string (or a number).', path);
  if (id.trim() === '') throw invalidField('distinct_id may not be blank.', path, 'blank');
  if (id.length > INGESTION_LIMITS.maxDistinctIdLength) {
    throw invalidField(`distinct_id is longer than ${INGESTION_LIMITS.maxDistinctIdLength} characters.`, path, 'max_length');
  }
  return id;
}

function eventNameOf(event: Json, at: Path): string {
  const name = event.event;
  const path = [...at, 'event'];
  if (name === undefined || name === null) throw invalidField('The event has no name: "event" is required.', path, 'required');
  if (typeof name !== 'string') throw invalidField('The event name must be a string.', path);
  if (name.trim() === '') throw invalidField('The event name may not be blank.', path, 'blank');
  if (name.length > INGESTION_LIMITS.maxEventNameLength) {
    throw invalidField(`The event name is longer than ${INGESTION_LIMITS.maxEventNameLength} characters.`, path, 'max_length');
  }
  return name;
}

/** Top-level `$set`/`$set_once` merge under the ones in properties (properties win); `$unset` likewise. */
function liftPersonUpdates(event: Json, properties: Json, at: Path): void {
  for (const key of ['$set', '$set_once'] as const) {
    const top = event[key];
    if (top === undefined || top === null) continue;
    if (!isObject(top)) throw invalidField(`"${key}" must be an object of person properties.`, [...at, key], 'not_a_dict');
    const inner = properties[key];
    properties[key] = isObject(inner) ? { ...top, ...inner } : top;
  }
  const unset = event.$unset;
  if (unset !== undefined && unset !== null && properties.$unset === undefined) properties.$unset = unset;
}

function normalizeEvent(raw: unknown, at: Path, envelope: Envelope, batchSentAt: number | null, now: number): IncomingEvent {
  if (!isObject(raw)) throw invalidField('Each event must be an object.', at, 'not_a_dict');
  const name = eventNameOf(raw, at);
  const props = raw.properties;
  if (props !== undefined && props !== null && !isObject(props)) {
    throw invalidField('"properties" must be an object.', [...at, 'properties'], 'not_a_dict');
  }
  const properties: Json = props ? { ...props } : {};
  const distinctId = distinctIdOf(raw, properties, at);

  let uuid: string;
  if (raw.uuid === undefined || raw.uuid === null || raw.uuid === '') {
    uuid = uuidv7(now);
  } else {
    const canonical = typeof raw.uuid === 'string' ? canonicalUuid(raw.uuid) : null;
    if (canonical === null) throw invalidField('Must be a valid UUID.', [...at, 'uuid']);
    uuid = canonical;
  }

  const timestamp = timeField(raw.timestamp, [...at, 'timestamp'], 'timestamp');
  const eventSentAt = timeField(raw.sent_at, [...at, 'sent_at'], 'sent_at');
  const offset = raw.offset;
  if (offset !== undefined && offset !== null && (typeof offset !== 'number' || !Number.isFinite(offset))) {
    throw invalidField('"offset" must be a number of milliseconds.', [...at, 'offset']);
  }
  const time = resolveEventTime({
    now,
    timestamp,
    sentAt: eventSentAt ?? batchSentAt,
    offset: typeof offset === 'number' ? offset : null,
    ignoreSentAt: properties.$ignore_sent_at === true,
  });
  if (!inRange(time)) {
    throw invalidField('The event time (from timestamp, sent_at and offset) falls outside the years 1 to 9999.', [...at, 'timestamp']);
  }

  liftPersonUpdates(raw, properties, at);
  delete properties.token;

  if (envelope.needsSanitizing) {
    return {
      uuid,
      event: storableString(name),
      distinctId: storableString(distinctId),
      properties: storableValue(properties) as Json,
      timestamp: new Date(time),
    };
  }
  return { uuid, event: name, distinctId, properties, timestamp: new Date(time) };
}

/**
 * No event over INGESTION_LIMITS.maxEventBytes as JSON: a 413 naming the first one. Only bodies
 * longer than the limit are measured (a UTF-8 byte is at most one character of the text).
 */
function checkEventSizes(envelope: Envelope): void {
  const limit = INGESTION_LIMITS.maxEventBytes;
  if (envelope.jsonLength * 3 <= limit) return;
  for (let i = 0; i < envelope.items.length; i++) {
    const size = Buffer.byteLength(JSON.stringify(envelope.items[i]) ?? '');
    if (size > limit) {
      const at = envelope.single ? [] : [...envelope.path, i];
      throw tooLarge(
        `The event is ${size} bytes as JSON; an event may have at most ${limit} (1 MB). Send large data elsewhere and keep a reference in the event.`,
        at.length ? at.join('__') : null,
      );
    }
  }
}

/**
 * Every event of the envelope validated and normalised, or a 400 naming the first bad one (a
 * batch is all or nothing). `now` is when the request arrived.
 */
export function normalizeEvents(envelope: Envelope, now: number): IncomingEvent[] {
  if (envelope.items.length === 0) {
    throw invalidField('The batch holds no events.', envelope.path.length ? envelope.path : ['batch'], 'empty');
  }
  checkEventSizes(envelope);
  const batchSentAt = timeField(envelope.sentAt, ['sent_at'], 'sent_at') ?? envelope.querySentAt;
  const events: IncomingEvent[] = new Array(envelope.items.length);
  for (let i = 0; i < envelope.items.length; i++) {
    const at = envelope.single ? [] : [...envelope.path, i];
    events[i] = normalizeEvent(envelope.items[i], at, envelope, batchSentAt, now);
  }
  return events;
}

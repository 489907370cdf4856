import { Type } from 'typebox';

// For the OpenAPI document only: bodies arrive in several encodings and are read by decode.ts and
// payload.ts, which give better errors (with the event's index) than a schema would.

const Event = Type.Object(
  {
    event: Type.String({ maxLength: 200, description: 'The event name.' }),
    distinct_id: Type.Union([Type.String({ maxLength: 200 }), Type.Number()], {
      description: 'Who the event is about (also read from `$distinct_id`, `properties.distinct_id`).',
    }),
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    timestamp: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Number()])),
    uuid: Type.Optional(Type.String({ format: 'uuid', description: 'Makes retries idempotent; assigned when absent.' })),
    sent_at: Type.Optional(Type.String({ format: 'date-time' })),
    offset: Type.Optional(Type.Number({ description: 'Milliseconds before the request was sent.' })),
    $set: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    $set_once: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
);

export const IngestionBody = Type.Union(
  [
    Type.Object(
      {
        api_key: Type.Optional(Type.String({ description: 'The project token (phc_…); `token` is read too.' })),
        batch: Type.Array(Event, { maxItems: 10_000 }),
        sent_at: Type.Optional(Type.String({ format: 'date-time' })),
        historical_migration: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: true },
    ),
    Type.Array(Event, { maxItems: 10_000 }),
    Event,
  ],
  {
    description:
      'JSON, or gzip of it (`Content-Encoding: gzip` or `?compression=gzip-js`), or base64 of it (`?compression=base64`), or a form with `data=<json or base64>`.',
  },
);

export const IngestionQuery = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The project token, when the body does not carry it.' })),
    api_key: Type.Optional(Type.String()),
    compression: Type.Optional(Type.String({ description: '`gzip-js` or `base64` (posthog-js).' })),
    sent_at: Type.Optional(Type.String({ description: 'Send time in epoch ms (posthog-js).' })),
  },
  { additionalProperties: true },
);

export const IngestionAccepted = Type.Object({ status: Type.Literal(1) });

import { Type, type Static } from 'typebox';

export const ProjectParams = Type.Object({
  project_id: Type.String({ description: "The project's integer id, or `@current`." }),
});

const DateArg = (what: string) =>
  Type.String({
    maxLength: 64,
    description: `${what}: ISO 8601 (an offset or Z; none reads as UTC), or relative to now (\`-7d\`, \`-24h\`, \`-2w\`, \`-1m\`, \`-1y\`).`,
  });

export const EventListQuery = Type.Object(
  {
    event: Type.Optional(Type.String({ maxLength: 400, description: 'Only events with this name.' })),
    distinct_id: Type.Optional(Type.String({ maxLength: 400, description: 'Only events of this distinct id.' })),
    person_id: Type.Optional(Type.String({ maxLength: 64, description: "Only events of this person's distinct ids (its uuid, or its integer id)." })),
    properties: Type.Optional(
      Type.String({
        maxLength: 20_000,
        description:
          'A JSON list of property filters `{"key","value","operator","type":"event"|"person"}` (all must match; type defaults to event), ' +
          'or a group `{"type":"AND"|"OR","values":[...]}`. Operators: exact (default), is_not, icontains, not_icontains, is_set, is_not_set, gt, gte, lt, lte. At most 50 filters.',
      }),
    ),
    before: Type.Optional(DateArg('Only events strictly before this time')),
    after: Type.Optional(DateArg('Only events strictly after this time')),
    before_uuid: Type.Optional(Type.String({ maxLength: 36, description: 'With `before` (set by `next`): events at exactly `before` with a smaller uuid are kept too.' })),
    after_uuid: Type.Optional(Type.String({ maxLength: 36, description: 'With `after` (set by `next` in ascending order): events at exactly `after` with a larger uuid are kept too.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Default 100; larger than 1000 is clamped to 1000.' })),
    orderBy: Type.Optional(Type.String({ maxLength: 100, description: 'A JSON list, `["-timestamp"]` (default, newest first) or `["timestamp"]`.' })),
  },
  { additionalProperties: true },
);
export type EventListQuery = Static<typeof EventListQuery>;

const EventPerson = Type.Object({
  id: Type.String({ description: 'the person uuid' }),
  uuid: Type.String(),
  is_identified: Type.Boolean(),
  distinct_ids: Type.Array(Type.String(), { description: 'the first distinct id only (PostHog: against payload bloat)' }),
  properties: Type.Record(Type.String(), Type.Unknown(), { description: 'email, name and username when set' }),
});

export const EventItem = Type.Object({
  id: Type.String({ description: 'the event uuid' }),
  distinct_id: Type.String(),
  properties: Type.Record(Type.String(), Type.Unknown()),
  event: Type.String(),
  timestamp: Type.String({ description: 'ISO 8601 UTC, microseconds' }),
  person: Type.Union([EventPerson, Type.Null()], { description: 'the current person of the distinct id, if any' }),
  elements: Type.Array(Type.Unknown(), { description: 'always empty (autocapture elements are not parsed)' }),
  elements_chain: Type.String({ description: 'the `$elements_chain` property as sent, else ""' }),
});

export const EventListResponse = Type.Object({
  next: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'the next page (the same filters, `before`/`after` moved past this page)' }),
  results: Type.Array(EventItem),
});

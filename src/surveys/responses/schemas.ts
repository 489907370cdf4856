import { Type } from 'typebox';

export const SurveyIdParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'the survey uuid' }) });
export const ResponseParams = Type.Object({
  project_id: Type.String(),
  id: Type.String({ description: 'the survey uuid' }),
  response_uuid: Type.String({ description: 'the uuid of the (latest) `survey sent` event of the response' }),
});

const DateArg = Type.String({
  description: 'ISO 8601 (with Z or an offset; a date alone, or no offset, reads as UTC). Also accepted in a JSON body.',
});
const ExcludeArchivedArg = Type.String({ description: '`true` leaves archived responses out. Also accepted in a JSON body.' });

/** Checked by the handlers (PostHog's messages); the schema documents them. */
export const StatsQuery = Type.Object(
  { date_from: Type.Optional(DateArg), date_to: Type.Optional(DateArg), exclude_archived: Type.Optional(ExcludeArchivedArg) },
  { additionalProperties: true },
);
export const ResponsesCountQuery = Type.Object(
  {
    exclude_archived: Type.Optional(ExcludeArchivedArg),
    survey_ids: Type.Optional(Type.String({ description: 'comma-separated survey uuids; none = every survey. Also accepted in a JSON body.' })),
  },
  { additionalProperties: true },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const EventStats = Type.Object({
  total_count: Type.Integer(),
  unique_persons: Type.Integer(),
  first_seen: Nullable(Type.String()),
  last_seen: Nullable(Type.String()),
  unique_persons_only_seen: Type.Integer(),
  total_count_only_seen: Type.Integer(),
});

export const Rates = Type.Object({
  response_rate: Type.Number(),
  dismissal_rate: Type.Number(),
  unique_users_response_rate: Type.Number(),
  unique_users_dismissal_rate: Type.Number(),
});

const StatsMap = Type.Object(
  {
    'survey shown': Type.Optional(EventStats),
    'survey dismissed': Type.Optional(EventStats),
    'survey sent': Type.Optional(EventStats),
  },
  { description: 'per event name; empty when the project has no survey that is not archived (global)' },
);

export const GlobalStatsResponse = Type.Object({ stats: StatsMap, rates: Rates });

export const SurveyStatsResponse = Type.Object({
  stats: StatsMap,
  rates: Rates,
  survey_id: Type.String(),
  start_date: Nullable(Type.String()),
  end_date: Nullable(Type.String()),
});

export const ResponsesCountResponse = Type.Record(Type.String(), Type.Integer(), {
  description: 'survey uuid → responses inside its window; surveys without responses are absent',
});

export const ArchivedUuidsResponse = Type.Array(Type.String());

export const ArchiveResponse = Type.Object({ response_uuid: Type.String(), archived: Type.Boolean() });

export const ResponseListQuery = Type.Object(
  {
    date_from: Type.Optional(
      Type.String({ description: 'ISO 8601, or relative to now as PostHog writes it (`-7d`, `-24h`, `-2w`, `-1m`, `-1y`); clamped to the survey start' }),
    ),
    date_to: Type.Optional(Type.String({ description: 'ISO 8601 or relative (as date_from), inclusive; clamped to the survey end' })),
    exclude_archived: Type.Optional(ExcludeArchivedArg),
    search: Type.Optional(Type.String({ description: 'case-insensitive substring of an open answer (at most 200 characters)' })),
    cursor: Type.Optional(Type.String({ description: 'the opaque cursor of a `next` or `previous` URL' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'page size, default 100, larger values clamped to 1000' })),
    format: Type.Optional(Type.String({ description: '`csv` streams every response of the window as CSV (also `Accept: text/csv`); `json` (default)' })),
  },
  { additionalProperties: true },
);

const ResponsePerson = Type.Object({
  id: Type.String({ description: 'the person uuid' }),
  name: Type.String({ description: 'email, name or username, else the distinct id' }),
  properties: Type.Record(Type.String(), Type.Unknown(), { description: 'email, name and username when set' }),
});

export const SurveyResponseItem = Type.Object({
  uuid: Type.String({ description: 'the response: the uuid of its latest `survey sent` event (what archive/unarchive take)' }),
  distinct_id: Type.String(),
  person: Nullable(ResponsePerson),
  timestamp: Type.String({ description: 'ISO 8601 UTC, microseconds when there are any' }),
  answers: Type.Record(Type.String(), Type.Unknown(), {
    description: 'question id → the answer as sent (a string, a number, or a list for multiple choice); null when not answered',
  }),
  archived: Type.Boolean(),
  partial: Type.Boolean({ description: '`$survey_completed` was false: the person left before the last question' }),
});

export const ResponseListResponse = Type.Object({
  next: Nullable(Type.String({ format: 'uri' })),
  previous: Nullable(Type.String({ format: 'uri' })),
  results: Type.Array(SurveyResponseItem),
});

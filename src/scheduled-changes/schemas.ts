import { Type } from 'typebox';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { paginatedOf } from '../kernel/http/pagination.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const ScheduleParams = Type.Object({ project_id: Type.String(), id: Type.String() });

export const ScheduleListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  model_name: Type.Optional(Type.String({ maxLength: 200, description: 'Exact model name (FeatureFlag)' })),
  record_id: Type.Optional(Type.String({ maxLength: 200, description: 'Exact id of the target record' })),
});

/** Types are checked field by field in body.ts, so every message is DRF's. */
export const ScheduleBody = Type.Object(
  {
    record_id: Type.Optional(Type.Unknown({ description: 'Id of the target flag (string, at most 200 characters)' })),
    model_name: Type.Optional(Type.Unknown({ description: '"FeatureFlag"' })),
    payload: Type.Optional(
      Type.Unknown({
        description:
          '{"operation": "update_status", "value": true|false}, {"operation": "add_release_condition", "value": {"groups": [...]}} or {"operation": "update_variants", "value": {"variants": [...], "payloads": {...}}}; checked when it runs',
      }),
    ),
    scheduled_at: Type.Optional(Type.Unknown({ description: 'ISO 8601 date-time; a past time runs on the next round' })),
    is_recurring: Type.Optional(Type.Unknown({ description: 'boolean, default false; false with a recurrence kept pauses a schedule' })),
    recurrence_interval: Type.Optional(Type.Unknown({ description: 'daily, weekly, monthly, yearly or null' })),
    cron_expression: Type.Optional(Type.Unknown({ description: "5-field cron in the project's time zone, or null" })),
    end_date: Type.Optional(Type.Unknown({ description: 'ISO 8601 date-time or null: a recurring schedule ends after it' })),
  },
  { additionalProperties: true },
);

export const ScheduleResponse = Type.Object({
  id: Type.Integer(),
  team_id: Type.Integer(),
  record_id: Type.String(),
  model_name: Type.String(),
  payload: Type.Unknown(),
  scheduled_at: Type.String(),
  executed_at: Nullable(Type.String()),
  failure_reason: Nullable(Type.String()),
  created_at: Type.String(),
  created_by: Nullable(UserSummary),
  updated_at: Type.String(),
  is_recurring: Type.Boolean(),
  recurrence_interval: Nullable(Type.String()),
  cron_expression: Nullable(Type.String()),
  last_executed_at: Nullable(Type.String()),
  end_date: Nullable(Type.String()),
  timezone: Nullable(Type.String()),
});

export const ScheduleListResponse = paginatedOf(ScheduleResponse);

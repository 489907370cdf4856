import { Type, type Static } from 'typebox';
import { Timestamp } from '../organizations/schemas.ts';

export const ProjectParams = Type.Object({
  project_id: Type.String({ description: "The project's integer id, or `@current`." }),
});

export const EnvironmentParams = Type.Object({
  project_id: Type.String({ description: "The environment's integer id, or `@current`." }),
});

export const OrganizationProjectParams = Type.Object({
  organization_id: Type.String({ description: "The organization's id, or `@current`." }),
  project_id: Type.String({ description: "The project's integer id, or `@current`." }),
});

const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'A colour as `#rrggbb`.' });

export const Project = Type.Object({
  id: Type.Integer(),
  project_id: Type.Integer({
    description: "The project this environment belongs to; a project's id is the id of its first environment, so for a project (and its first environment) it is the same as `id`.",
  }),
  name: Type.String(),
  organization: Type.String({ format: 'uuid' }),
  api_token: Type.String({ description: 'The public project token (`phc_…`) SDKs send.' }),
  secret_api_token: Type.String({
    description:
      'The secret project token (`phs_…`). Stored only as a hash: the response that creates the project ' +
      'carries it in clear, once; every later read shows its masked form (`phs_...abcd`).',
  }),
  timezone: Type.String(),
  color: Type.Union([Type.String(), Type.Null()], { description: 'The colour the console paints the environment with (`#rrggbb`), or null.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Project = Static<typeof Project>;

const ProjectName = Type.String({ minLength: 1, maxLength: 200 });
const Timezone = Type.String({ minLength: 1, maxLength: 240, description: 'An IANA time zone, e.g. `Europe/Berlin`.' });

export const CreateProjectBody = Type.Object({
  name: ProjectName,
  organization: Type.Optional(
    Type.String({ format: 'uuid', description: "Only on `POST /api/projects/`; default: the caller's current organization." }),
  ),
  timezone: Type.Optional(Timezone),
});
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const UpdateProjectBody = Type.Object({
  name: Type.Optional(ProjectName),
  timezone: Type.Optional(Timezone),
});
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const CreateEnvironmentBody = Type.Object({
  name: ProjectName,
  timezone: Type.Optional(Timezone),
  color: Type.Optional(Type.Union([Color, Type.Null()])),
});
export type CreateEnvironmentBody = Static<typeof CreateEnvironmentBody>;

export const UpdateEnvironmentBody = Type.Object({
  name: Type.Optional(ProjectName),
  timezone: Type.Optional(Timezone),
  color: Type.Optional(Type.Union([Color, Type.Null()])),
});
export type UpdateEnvironmentBody = Static<typeof UpdateEnvironmentBody>;

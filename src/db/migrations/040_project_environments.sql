-- Projects and environments as PostHog has them: an organization has projects, a project has
-- environments. The `projects` table keeps holding what every other table points at (PostHog's
-- team, an environment: its own flags, surveys, cohorts, persons, events, tokens); `project_groups`
-- is the grouping PostHog calls a project. A project's id is the id of its first environment, so
-- every existing project becomes a project with one environment of the same id: nothing is
-- renumbered and every token and URL keeps naming what it named.
CREATE TABLE project_groups (
  id              integer PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations(id),
  name            text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX project_groups_organization_idx ON project_groups (organization_id, id);

INSERT INTO project_groups (id, organization_id, name, created_at, updated_at)
SELECT id, organization_id, name, created_at, updated_at FROM projects;

ALTER TABLE projects ADD COLUMN project_group_id integer REFERENCES project_groups(id) ON DELETE CASCADE;
UPDATE projects SET project_group_id = id;
ALTER TABLE projects ALTER COLUMN project_group_id SET NOT NULL;
CREATE INDEX projects_group_idx ON projects (project_group_id, id);

-- An environment inserted without a project is the first environment of a new project of its own
-- name and id, whichever code path inserts it.
CREATE FUNCTION projects_own_group() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.project_group_id IS NULL THEN
    INSERT INTO project_groups (id, organization_id, name) VALUES (NEW.id, NEW.organization_id, NEW.name);
    NEW.project_group_id := NEW.id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER projects_own_group BEFORE INSERT ON projects FOR EACH ROW EXECUTE FUNCTION projects_own_group();

-- The colour the console paints an environment with, so that production is never mistaken for staging.
ALTER TABLE projects ADD COLUMN color text CHECK (color IS NULL OR color ~ '^#[0-9a-f]{6}$');

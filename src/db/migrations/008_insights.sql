-- Insights on dashboards (the generated usage dashboard of a flag, for now). An insight stores its
-- query (PostHog's InsightVizNode / TrendsQuery shape); results are computed from `events` on read.
CREATE TABLE insights (
  id            serial PRIMARY KEY,
  project_id    integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  dashboard_id  integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
  name          text NOT NULL,
  kind          text NOT NULL,
  query         jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
-- Generated insights are upserted by name, which keeps the usage-dashboard actions idempotent.
CREATE UNIQUE INDEX insights_dashboard_name_idx ON insights (dashboard_id, name);
CREATE INDEX insights_project_idx ON insights (project_id, id);
-- The cohort list: live cohorts of a project, newest first.
CREATE INDEX cohorts_project_live_idx ON cohorts (project_id, created_at DESC, id DESC) WHERE NOT deleted;

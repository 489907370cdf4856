-- Ingestion writes about 80 experiment-state rows per 100 events. Each insert into these tables
-- checked its foreign key with a `FOR KEY SHARE` lock on the experiment's row, so every concurrent
-- batch locked the same few `experiments` rows and PostgreSQL had to build shared-lock lists
-- (multixacts) for them. The state now refers to its experiment by id alone. Experiment ids come
-- from a sequence and are never reused, so a state row left by a batch that committed beside the
-- experiment's deletion is unreachable and harmless; the trigger below clears the state of every
-- deleted experiment, whether deleted directly or with its project.
ALTER TABLE experiment_exposures DROP CONSTRAINT IF EXISTS experiment_exposures_experiment_id_fkey;
ALTER TABLE experiment_metric_units DROP CONSTRAINT IF EXISTS experiment_metric_units_experiment_id_fkey;
ALTER TABLE experiment_metric_sums DROP CONSTRAINT IF EXISTS experiment_metric_sums_experiment_id_fkey;
ALTER TABLE experiment_exposure_days DROP CONSTRAINT IF EXISTS experiment_exposure_days_experiment_id_fkey;
ALTER TABLE experiment_significance_notices DROP CONSTRAINT IF EXISTS experiment_significance_notices_experiment_id_fkey;

CREATE FUNCTION clear_deleted_experiments_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM experiment_exposures WHERE experiment_id IN (SELECT id FROM deleted_experiments);
  DELETE FROM experiment_metric_units WHERE experiment_id IN (SELECT id FROM deleted_experiments);
  DELETE FROM experiment_metric_sums WHERE experiment_id IN (SELECT id FROM deleted_experiments);
  DELETE FROM experiment_exposure_days WHERE experiment_id IN (SELECT id FROM deleted_experiments);
  DELETE FROM experiment_significance_notices WHERE experiment_id IN (SELECT id FROM deleted_experiments);
  RETURN NULL;
END;
$$;

CREATE TRIGGER experiments_clear_state
  AFTER DELETE ON experiments
  REFERENCING OLD TABLE AS deleted_experiments
  FOR EACH STATEMENT EXECUTE FUNCTION clear_deleted_experiments_state();

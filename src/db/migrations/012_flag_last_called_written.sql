-- When `last_called_at` was last written (database clock): processes read the times other
-- processes wrote since their last look, instead of hearing a change notice per flag called.
ALTER TABLE feature_flags ADD COLUMN last_called_written_at timestamptz;

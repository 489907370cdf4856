-- PostHog's archived flags: hidden from the default flag list, always disabled, kept (not deleted).
ALTER TABLE feature_flags ADD COLUMN archived boolean NOT NULL DEFAULT false;

-- The order in which a person's distinct ids were attached (PostHog lists them in that order, and
-- the first one names a person without an email). A merge moves the rows and keeps their numbers,
-- so the oldest id of the merged person stays first.
ALTER TABLE person_distinct_ids ADD COLUMN seq bigserial;

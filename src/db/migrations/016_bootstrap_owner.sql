-- The person start-up made owner (the first start's, or INIT_ADMIN_EMAIL's the first time it was
-- applied), remembered by id: a later start never hands ownership to whoever holds that address
-- by then (docs/accounts.md). One row at most; gone with the user.
CREATE TABLE bootstrap_owner (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- 'first_start': made without INIT_ADMIN_EMAIL (a later INIT_ADMIN_EMAIL may name its own person
  -- once); 'init_admin_email': INIT_ADMIN_EMAIL's person, kept whatever address it names later.
  source      text NOT NULL CHECK (source IN ('first_start', 'init_admin_email')),
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- People who sign in: passwords, server-side sessions, one-time sign-in links, sign-in throttling,
-- and invitations to organizations (docs/accounts.md).

-- scrypt, as `scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>`; NULL: no password (signs in by link only).
ALTER TABLE users ADD COLUMN password_hash text;
ALTER TABLE users ADD COLUMN last_login timestamptz;
-- Sign-in looks e-mails up whatever their case: two accounts may not differ by case alone.
CREATE UNIQUE INDEX users_email_lower_idx ON users (lower(email));

ALTER TABLE organization_memberships ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE organization_memberships ADD CONSTRAINT organization_memberships_id_key UNIQUE (id);
ALTER TABLE organization_memberships ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- The cookie carries a random id; only its sha256 is stored, as for keys. The CSRF token too.
CREATE TABLE sessions (
  id_hash       text PRIMARY KEY,
  user_id       integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_hash     text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  -- The absolute limit; the idle limit is counted from last_seen_at.
  expires_at    timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

-- Single-use sign-in links (first start, `npm run sign-in-link`): sha256 of the token.
CREATE TABLE sign_in_tokens (
  token_hash  text PRIMARY KEY,
  user_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);

-- Failed sign-ins, counted per account (the e-mail as typed, lower-cased) and per client address
-- over a sliding window; in PostgreSQL so that every process sharing it counts the same. A
-- successful sign-in clears `account` (the address keeps counting).
CREATE TABLE login_failures (
  id            bigserial PRIMARY KEY,
  account       text,
  address       text NOT NULL,
  attempted_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_account_idx ON login_failures (account, attempted_at);
CREATE INDEX login_failures_address_idx ON login_failures (address, attempted_at);
CREATE INDEX login_failures_attempted_idx ON login_failures (attempted_at);

CREATE TABLE organization_invites (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id       uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  target_email          text NOT NULL,
  first_name            text NOT NULL DEFAULT '',
  level                 text NOT NULL CHECK (level IN ('member', 'admin', 'owner')),
  created_by            integer REFERENCES users(id) ON DELETE SET NULL,
  emailing_attempt_made boolean NOT NULL DEFAULT false,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_invites_organization_idx ON organization_invites (organization_id, created_at DESC);
CREATE INDEX organization_invites_email_idx ON organization_invites (organization_id, lower(target_email));

-- Single sign-on with OpenID Connect (docs/accounts.md).

-- A sign-in on its way through the provider, for 10 minutes at most, whichever process the
-- callback reaches. The state's sha256 finds it; the PKCE verifier lives only in the browser's
-- HttpOnly cookie, and its sha256 here binds the sign-in to that browser. The nonce is no secret
-- (the ID token carries it back). A callback deletes the row whatever follows: single use.
CREATE TABLE oidc_sign_ins (
  state_hash     text PRIMARY KEY,
  verifier_hash  text NOT NULL,
  nonce          text NOT NULL,
  -- The client address that started it: how many each address may have open is bounded.
  address        text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX oidc_sign_ins_expires_idx ON oidc_sign_ins (expires_at);
CREATE INDEX oidc_sign_ins_address_idx ON oidc_sign_ins (address, expires_at);

-- The provider's account a person signs in with: the issuer and its stable subject (`sub`).
CREATE TABLE user_identities (
  issuer        text NOT NULL,
  subject       text NOT NULL,
  user_id       integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email         text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user_idx ON user_identities (user_id);

-- Password reset links (GET /accounts/password/reset/): only a hash of the link's token is
-- stored; a link works once, until it expires, and only while the account is active.
CREATE TABLE password_reset (
    key_hash   TEXT    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX password_reset_user ON password_reset (user_id);
-- Bumped whenever an account's failed password attempts are forgiven (`admin unlock`, a new
-- password): every server process forgets the failures it counted for that account.
CREATE TABLE password_failures_cleared (
    user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    generation INTEGER NOT NULL
);

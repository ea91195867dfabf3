-- Browser log-in sessions of the built-in web client (cookie `sessionid`, POST /login/).
-- Only a hash of the cookie's token is stored, so a copy of the database logs no one in.
CREATE TABLE web_session (
    key_hash         TEXT    PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf_token       TEXT    NOT NULL,
    -- Hash of the password hash at log-in: a password change ends every older session.
    auth_fingerprint TEXT    NOT NULL,
    created_at       REAL    NOT NULL,
    expires_at       REAL    NOT NULL
);
CREATE INDEX web_session_user ON web_session (user_id);

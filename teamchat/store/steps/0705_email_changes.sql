-- Email changes a user asked for (PATCH /settings email): pending until the link mailed to
-- the new address is opened.
CREATE TABLE email_change (
    confirmation_key TEXT    PRIMARY KEY,
    user_id          INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    new_email        TEXT    NOT NULL,
    created          INTEGER NOT NULL
);
CREATE INDEX email_change_user ON email_change (user_id);

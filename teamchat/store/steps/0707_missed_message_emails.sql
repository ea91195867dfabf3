-- Messages that may be emailed to a recipient who was offline when they arrived (a direct
-- message, a mention, an alert word): sent at `due` if still unread, then forgotten.
CREATE TABLE missed_message_email (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    trigger    TEXT    NOT NULL,
    due        INTEGER NOT NULL,
    -- The organization URL the sender used, for the links in the email.
    realm_url  TEXT    NOT NULL,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;
CREATE INDEX missed_message_email_due ON missed_message_email (due);

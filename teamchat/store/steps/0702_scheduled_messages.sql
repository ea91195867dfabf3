-- Scheduled messages (send later) and reminders (POST /reminders): messages waiting for
-- their time. A row is deleted when it is delivered; a failed one stays, marked, until its
-- sender edits or deletes it.

CREATE TABLE scheduled_message (
    id                          INTEGER PRIMARY KEY AUTOINCREMENT,
    sender_id                   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    delivery_type               TEXT    NOT NULL CHECK (delivery_type IN ('send_later', 'remind')),
    recipient_type              TEXT    NOT NULL CHECK (recipient_type IN ('stream', 'private')),
    -- Channel messages: the channel; direct messages: a JSON list of recipient user ids.
    stream_id                   INTEGER REFERENCES stream(id) ON DELETE CASCADE,
    to_user_ids                 TEXT,
    topic                       TEXT    NOT NULL DEFAULT '',
    content                     TEXT    NOT NULL,
    rendered_content            TEXT    NOT NULL,
    scheduled_timestamp         INTEGER NOT NULL,
    read_by_sender              INTEGER NOT NULL DEFAULT 0,
    client                      TEXT    NOT NULL,
    failed                      INTEGER NOT NULL DEFAULT 0,
    failure_message             TEXT,
    reminder_target_message_id  INTEGER,
    reminder_note               TEXT,
    -- The organization URL the sender used, for links rendered at delivery.
    realm_url                   TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX scheduled_message_due ON scheduled_message (failed, scheduled_timestamp);
CREATE INDEX scheduled_message_sender ON scheduled_message (sender_id, delivery_type);

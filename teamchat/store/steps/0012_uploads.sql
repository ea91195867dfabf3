-- Uploaded files live in the database too, in chunks, so one file holds all of an
-- organization's data and a backup is one file.

CREATE TABLE attachment (
    id           INTEGER PRIMARY KEY,
    path_id      TEXT    NOT NULL UNIQUE,
    file_name    TEXT    NOT NULL,
    content_type TEXT    NOT NULL,
    size         INTEGER NOT NULL CHECK (size >= 0),
    owner_id     INTEGER NOT NULL REFERENCES users(id),
    create_time  INTEGER NOT NULL
);
CREATE INDEX attachment_owner ON attachment (owner_id);

CREATE TABLE attachment_chunk (
    attachment_id INTEGER NOT NULL REFERENCES attachment(id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    data          BLOB    NOT NULL
);
CREATE UNIQUE INDEX attachment_chunk_seq ON attachment_chunk (attachment_id, seq);

-- Which messages link which upload (filled by message sends and edits); the message
-- table belongs to another step, so this references it by id only.
CREATE TABLE attachment_message (
    attachment_id INTEGER NOT NULL REFERENCES attachment(id) ON DELETE CASCADE,
    message_id    INTEGER NOT NULL,
    date_sent     INTEGER NOT NULL,
    PRIMARY KEY (attachment_id, message_id)
) WITHOUT ROWID;
CREATE INDEX attachment_message_message ON attachment_message (message_id);

-- Uploaded avatars (avatar_source 'U'): one current image per user.
CREATE TABLE user_avatar (
    user_id      INTEGER PRIMARY KEY REFERENCES users(id),
    content_type TEXT    NOT NULL,
    data         BLOB    NOT NULL
);

-- Secrets the server keeps (e.g. the key that signs temporary upload URLs).
CREATE TABLE server_secret (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

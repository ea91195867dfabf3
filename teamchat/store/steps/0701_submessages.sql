-- Submessages (POST /submessage, `/poll` and `/todo` widgets): small JSON documents attached to
-- a message, the first ("widget") by its sender, the rest (votes, tasks) by any reader.

CREATE TABLE submessage (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    sender_id  INTEGER NOT NULL REFERENCES users(id),
    msg_type   TEXT    NOT NULL,
    content    TEXT    NOT NULL
);
CREATE INDEX submessage_message ON submessage (message_id, id);

-- Drafts synchronized between a user's clients (GET/POST /drafts, PATCH/DELETE /drafts/{id}).
CREATE TABLE draft (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    -- "stream", "private", or "" (not addressed yet)
    type      TEXT    NOT NULL CHECK (type IN ('stream', 'private', '')),
    -- JSON list: the channel id, or the other participants' user ids
    to_ids    TEXT    NOT NULL,
    topic     TEXT    NOT NULL DEFAULT '',
    content   TEXT    NOT NULL,
    timestamp INTEGER NOT NULL
);
CREATE INDEX draft_user ON draft (user_id, timestamp);

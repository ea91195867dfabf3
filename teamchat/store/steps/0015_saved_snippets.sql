-- Saved snippets (GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{id}): a user's
-- reusable pieces of message text, private to them.

CREATE TABLE saved_snippet (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title        TEXT    NOT NULL CHECK (title <> ''),
    content      TEXT    NOT NULL CHECK (content <> ''),
    date_created INTEGER NOT NULL
);
CREATE INDEX saved_snippet_user ON saved_snippet (user_id, id);

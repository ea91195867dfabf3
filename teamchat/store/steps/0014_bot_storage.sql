-- Bot storage (GET/PUT/DELETE /bot_storage): string key-value pairs per user, used by
-- zulip_bots' StateHandler. Zulip limits each user's total to USER_STATE_SIZE_LIMIT
-- characters (keys plus values); the action enforces that.

CREATE TABLE bot_storage (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key     TEXT    NOT NULL,
    value   TEXT    NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

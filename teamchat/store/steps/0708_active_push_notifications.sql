-- Mobile notifications showing on a user's devices (Zulip's active_mobile_push_notification
-- flag): reading the message sends the `remove` payload, then the row goes.
CREATE TABLE active_push_notification (
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    -- The organization URL the notification named (the app matches accounts by it).
    realm_url  TEXT    NOT NULL,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;

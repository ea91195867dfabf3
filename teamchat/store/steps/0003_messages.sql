-- Channels, subscriptions, messages and everything hanging off a message.
--
-- A recipient is a channel or one direct-message conversation (its sorted participant ids),
-- so a conversation narrow is one index range. Per-user message state is one row per
-- (user, message) with the flags as a bitmask; partial indexes serve the common `is:` narrows.

CREATE TABLE stream (
    id                            INTEGER PRIMARY KEY,
    name                          TEXT    NOT NULL COLLATE NOCASE,
    description                   TEXT    NOT NULL DEFAULT '',
    rendered_description          TEXT    NOT NULL DEFAULT '',
    invite_only                   INTEGER NOT NULL DEFAULT 0,
    is_web_public                 INTEGER NOT NULL DEFAULT 0,
    history_public_to_subscribers INTEGER NOT NULL DEFAULT 1,
    message_retention_days        INTEGER,
    topics_policy                 TEXT    NOT NULL DEFAULT 'inherit' CHECK (topics_policy IN
        ('inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only')),
    date_created                  INTEGER NOT NULL,
    creator_id                    INTEGER REFERENCES users(id),
    is_archived                   INTEGER NOT NULL DEFAULT 0,
    first_message_id              INTEGER,
    folder_id                     INTEGER,
    recipient_id                  INTEGER UNIQUE,
    -- The channel's group-valued permission settings (group id or anonymous group).
    settings_json                 TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings_json)),
    CHECK (NOT (is_web_public AND invite_only)),
    CHECK (invite_only OR history_public_to_subscribers)
);
CREATE UNIQUE INDEX stream_name ON stream (name);

CREATE TABLE recipient (
    id        INTEGER PRIMARY KEY,
    stream_id INTEGER UNIQUE REFERENCES stream(id),
    -- Direct messages: the conversation's participants, sorted ids joined by commas.
    user_ids  TEXT UNIQUE,
    CHECK ((stream_id IS NULL) != (user_ids IS NULL))
);

CREATE TABLE direct_message_member (
    user_id      INTEGER NOT NULL REFERENCES users(id),
    recipient_id INTEGER NOT NULL REFERENCES recipient(id),
    PRIMARY KEY (user_id, recipient_id)
) WITHOUT ROWID;

CREATE TABLE subscription (
    stream_id                INTEGER NOT NULL REFERENCES stream(id),
    user_id                  INTEGER NOT NULL REFERENCES users(id),
    active                   INTEGER NOT NULL DEFAULT 1,
    color                    TEXT    NOT NULL
        CHECK (color GLOB '#[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
    is_muted                 INTEGER NOT NULL DEFAULT 0,
    pin_to_top               INTEGER NOT NULL DEFAULT 0,
    desktop_notifications    INTEGER,
    audible_notifications    INTEGER,
    push_notifications       INTEGER,
    email_notifications      INTEGER,
    wildcard_mentions_notify INTEGER,
    PRIMARY KEY (stream_id, user_id)
) WITHOUT ROWID;
CREATE INDEX subscription_user ON subscription (user_id, stream_id);

-- Messages per channel per UTC day: weekly traffic and recent activity without a scan.
CREATE TABLE stream_traffic (
    stream_id INTEGER NOT NULL REFERENCES stream(id),
    day       INTEGER NOT NULL,
    messages  INTEGER NOT NULL,
    PRIMARY KEY (stream_id, day)
) WITHOUT ROWID;

CREATE TABLE message (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    sender_id        INTEGER NOT NULL REFERENCES users(id),
    recipient_id     INTEGER NOT NULL REFERENCES recipient(id),
    -- NULL for direct messages.
    stream_id        INTEGER REFERENCES stream(id),
    topic            TEXT    NOT NULL DEFAULT '' COLLATE NOCASE,
    content          TEXT    NOT NULL,
    rendered_content TEXT    NOT NULL,
    client           TEXT    NOT NULL DEFAULT '',
    date_sent        INTEGER NOT NULL,
    last_edit_time   INTEGER,
    last_moved_time  INTEGER,
    -- JSON list of edit entries, oldest first (sent to clients most recent first).
    edit_history     TEXT CHECK (edit_history IS NULL OR json_valid(edit_history)),
    has_link         INTEGER NOT NULL DEFAULT 0,
    has_image        INTEGER NOT NULL DEFAULT 0,
    has_attachment   INTEGER NOT NULL DEFAULT 0,
    is_me_message    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX message_recipient ON message (recipient_id, id);
CREATE INDEX message_recipient_topic ON message (recipient_id, topic, id);
CREATE INDEX message_sender ON message (sender_id, id);

-- Flags bitmask (teamchat.lib.flags): read 1, starred 2, collapsed 4, mentioned 8,
-- stream_wildcard_mentioned 16, topic_wildcard_mentioned 32, has_alert_word 64,
-- historical 128, is_private 256.
CREATE TABLE user_message (
    user_id    INTEGER NOT NULL REFERENCES users(id),
    message_id INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    flags      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, message_id)
) WITHOUT ROWID;
CREATE INDEX user_message_message ON user_message (message_id);
CREATE INDEX user_message_unread ON user_message (user_id, message_id) WHERE (flags & 1) = 0;
CREATE INDEX user_message_starred ON user_message (user_id, message_id) WHERE (flags & 2) != 0;
CREATE INDEX user_message_mentioned ON user_message (user_id, message_id)
    WHERE (flags & 56) != 0;
CREATE INDEX user_message_private ON user_message (user_id, message_id) WHERE (flags & 256) != 0;

-- Full-text search over topic and raw content (external content: the message table).
CREATE VIRTUAL TABLE message_fts USING fts5(
    topic, content, content='message', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER message_fts_insert AFTER INSERT ON message BEGIN
    INSERT INTO message_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content);
END;
CREATE TRIGGER message_fts_delete AFTER DELETE ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, topic, content)
        VALUES ('delete', old.id, old.topic, old.content);
END;
CREATE TRIGGER message_fts_update AFTER UPDATE OF topic, content ON message BEGIN
    INSERT INTO message_fts (message_fts, rowid, topic, content)
        VALUES ('delete', old.id, old.topic, old.content);
    INSERT INTO message_fts (rowid, topic, content) VALUES (new.id, new.topic, new.content);
END;

CREATE TABLE reaction (
    id            INTEGER PRIMARY KEY,
    message_id    INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL REFERENCES users(id),
    emoji_name    TEXT    NOT NULL,
    emoji_code    TEXT    NOT NULL,
    reaction_type TEXT    NOT NULL
        CHECK (reaction_type IN ('unicode_emoji', 'realm_emoji', 'zulip_extra_emoji')),
    UNIQUE (message_id, user_id, reaction_type, emoji_code),
    UNIQUE (message_id, user_id, emoji_name)
);

CREATE TABLE user_topic (
    user_id           INTEGER NOT NULL REFERENCES users(id),
    stream_id         INTEGER NOT NULL REFERENCES stream(id),
    topic_name        TEXT    NOT NULL COLLATE NOCASE,
    visibility_policy INTEGER NOT NULL CHECK (visibility_policy IN (1, 2, 3)),
    last_updated      INTEGER NOT NULL,
    PRIMARY KEY (user_id, stream_id, topic_name)
) WITHOUT ROWID;
CREATE INDEX user_topic_stream ON user_topic (stream_id, topic_name);

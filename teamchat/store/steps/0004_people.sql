-- People: the realm's defaults for new users' settings, bot services and configuration,
-- custom profile fields and their values, presence, user status, alert words, muted users.

CREATE TABLE realm_user_default (
    realm_id      INTEGER PRIMARY KEY REFERENCES realm(id),
    settings_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings_json))
);

-- Outgoing webhook (base_url, interface) and embedded (name = bot) services of a bot.
CREATE TABLE bot_service (
    id        INTEGER PRIMARY KEY,
    bot_id    INTEGER NOT NULL REFERENCES users(id),
    name      TEXT    NOT NULL,
    base_url  TEXT    NOT NULL DEFAULT '',
    interface INTEGER NOT NULL DEFAULT 1 CHECK (interface IN (1, 2)),
    token     TEXT    NOT NULL
);
CREATE INDEX bot_service_bot ON bot_service (bot_id);

CREATE TABLE bot_config (
    bot_id INTEGER NOT NULL REFERENCES users(id),
    key    TEXT    NOT NULL,
    value  TEXT    NOT NULL,
    PRIMARY KEY (bot_id, key)
) WITHOUT ROWID;

CREATE TABLE custom_profile_field (
    id                         INTEGER PRIMARY KEY,
    name                       TEXT    NOT NULL,
    hint                       TEXT    NOT NULL DEFAULT '',
    field_type                 INTEGER NOT NULL CHECK (field_type BETWEEN 1 AND 8),
    field_data                 TEXT    NOT NULL DEFAULT '',
    sort_order                 INTEGER NOT NULL DEFAULT 0,
    display_in_profile_summary INTEGER NOT NULL DEFAULT 0,
    required                   INTEGER NOT NULL DEFAULT 0,
    editable_by_user           INTEGER NOT NULL DEFAULT 1,
    use_for_user_matching      INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX custom_profile_field_name ON custom_profile_field (name);

CREATE TABLE custom_profile_field_value (
    user_id        INTEGER NOT NULL REFERENCES users(id),
    field_id       INTEGER NOT NULL REFERENCES custom_profile_field(id) ON DELETE CASCADE,
    value          TEXT    NOT NULL,
    rendered_value TEXT,
    PRIMARY KEY (user_id, field_id)
) WITHOUT ROWID;
CREATE INDEX custom_profile_field_value_field ON custom_profile_field_value (field_id);

-- One row per user; last_update_id comes from presence_sequence (strictly increasing).
CREATE TABLE user_presence (
    user_id             INTEGER PRIMARY KEY REFERENCES users(id),
    last_active_time    INTEGER,
    last_connected_time INTEGER,
    last_update_id      INTEGER NOT NULL
);
CREATE INDEX user_presence_update ON user_presence (last_update_id);

CREATE TABLE presence_sequence (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    last_update_id INTEGER NOT NULL
);
INSERT INTO presence_sequence (id, last_update_id) VALUES (1, 0);

CREATE TABLE user_status (
    user_id       INTEGER PRIMARY KEY REFERENCES users(id),
    timestamp     INTEGER NOT NULL,
    status_text   TEXT    NOT NULL DEFAULT '',
    emoji_name    TEXT    NOT NULL DEFAULT '',
    emoji_code    TEXT    NOT NULL DEFAULT '',
    reaction_type TEXT    NOT NULL DEFAULT 'unicode_emoji'
);

CREATE TABLE alert_word (
    id      INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id),
    word    TEXT    NOT NULL,
    UNIQUE (user_id, word)
);

CREATE TABLE muted_user (
    user_id       INTEGER NOT NULL REFERENCES users(id),
    muted_user_id INTEGER NOT NULL REFERENCES users(id),
    date_muted    INTEGER NOT NULL,
    PRIMARY KEY (user_id, muted_user_id),
    CHECK (user_id != muted_user_id)
) WITHOUT ROWID;

-- Organization administration: channel folders, linkifiers, code playgrounds, invitations,
-- push registrations. Also Zulip's system-group nesting: role:members holds
-- role:fullmembers (not role:moderators) as its subgroup.

UPDATE user_group_subgroup
   SET subgroup_id = (SELECT id FROM user_group WHERE name = 'role:fullmembers' AND is_system_group = 1)
 WHERE group_id = (SELECT id FROM user_group WHERE name = 'role:members' AND is_system_group = 1)
   AND subgroup_id = (SELECT id FROM user_group WHERE name = 'role:moderators' AND is_system_group = 1);

CREATE TABLE channel_folder (
    id                   INTEGER PRIMARY KEY,
    name                 TEXT    NOT NULL CHECK (length(trim(name)) > 0),
    description          TEXT    NOT NULL DEFAULT '',
    rendered_description TEXT    NOT NULL DEFAULT '',
    "order"              INTEGER NOT NULL,
    date_created         INTEGER NOT NULL,
    creator_id           INTEGER REFERENCES users(id),
    is_archived          INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX channel_folder_name ON channel_folder (name COLLATE NOCASE);

CREATE TABLE linkifier (
    id           INTEGER PRIMARY KEY,
    pattern      TEXT    NOT NULL,
    url_template TEXT    NOT NULL,
    "order"      INTEGER NOT NULL
);
CREATE UNIQUE INDEX linkifier_pattern ON linkifier (pattern);

CREATE TABLE playground (
    id                INTEGER PRIMARY KEY,
    name              TEXT NOT NULL,
    pygments_language TEXT NOT NULL,
    url_template      TEXT NOT NULL
);
CREATE UNIQUE INDEX playground_language_name ON playground (pygments_language, name);

-- Email invitations (email set) and reusable invitation links (email NULL).
CREATE TABLE invitation (
    id                                  INTEGER PRIMARY KEY,
    email                               TEXT,
    key                                 TEXT    NOT NULL UNIQUE,
    referred_by                         INTEGER NOT NULL REFERENCES users(id),
    invited_as                          INTEGER NOT NULL CHECK (invited_as IN (100, 200, 300, 400, 600)),
    date_created                        INTEGER NOT NULL,
    expiry_date                         INTEGER,
    status                              INTEGER NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
    stream_ids_json                     TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(stream_ids_json)),
    group_ids_json                      TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(group_ids_json)),
    include_realm_default_subscriptions INTEGER NOT NULL DEFAULT 0,
    notify_referrer_on_join             INTEGER NOT NULL DEFAULT 0,
    welcome_message_custom_text         TEXT
);
CREATE INDEX invitation_email ON invitation (email COLLATE NOCASE);

-- Client devices (POST /register_client_device) and their E2EE push registration.
CREATE TABLE client_device (
    id                          INTEGER PRIMARY KEY,
    user_id                     INTEGER NOT NULL REFERENCES users(id),
    date_created                INTEGER NOT NULL,
    push_key_id                 INTEGER CHECK (push_key_id BETWEEN 0 AND 4294967295),
    push_key                    BLOB,
    token_kind                  TEXT CHECK (token_kind IN ('fcm', 'apns')),
    token_id                    BLOB,
    bouncer_public_key          TEXT,
    encrypted_push_registration TEXT,
    push_updated                INTEGER
);
CREATE INDEX client_device_user ON client_device (user_id);

-- Legacy (non-E2EE) push tokens: users/me/android_gcm_reg_id, users/me/apns_device_token.
CREATE TABLE push_token (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    kind         TEXT    NOT NULL CHECK (kind IN ('fcm', 'apns')),
    token        TEXT    NOT NULL,
    ios_app_id   TEXT,
    date_created INTEGER NOT NULL,
    UNIQUE (user_id, kind, token)
);

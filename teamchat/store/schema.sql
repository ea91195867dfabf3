-- teamchat schema, version 1: the organization and its people.
-- Later versions are ordered steps in migrations.py; never edit a shipped step.

CREATE TABLE realm (
    id            INTEGER PRIMARY KEY,
    string_id     TEXT    NOT NULL DEFAULT '',
    name          TEXT    NOT NULL,
    description   TEXT    NOT NULL DEFAULT '',
    host          TEXT    NOT NULL,
    date_created  INTEGER NOT NULL,
    settings_json TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings_json))
);

CREATE TABLE users (
    id                       INTEGER PRIMARY KEY,
    delivery_email           TEXT    NOT NULL,
    full_name                TEXT    NOT NULL,
    api_key                  TEXT    NOT NULL UNIQUE,
    password_hash            TEXT,
    role                     INTEGER NOT NULL DEFAULT 400 CHECK (role IN (100, 200, 300, 400, 600)),
    is_active                INTEGER NOT NULL DEFAULT 1,
    is_bot                   INTEGER NOT NULL DEFAULT 0,
    bot_type                 INTEGER CHECK (bot_type IS NULL OR bot_type BETWEEN 1 AND 4),
    bot_owner_id             INTEGER REFERENCES users(id),
    date_joined              INTEGER NOT NULL,
    timezone                 TEXT    NOT NULL DEFAULT '',
    avatar_source            TEXT    NOT NULL DEFAULT 'G',
    avatar_version           INTEGER NOT NULL DEFAULT 1,
    email_address_visibility INTEGER NOT NULL DEFAULT 1 CHECK (email_address_visibility BETWEEN 1 AND 5),
    settings_json            TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings_json))
);
CREATE UNIQUE INDEX users_delivery_email ON users (delivery_email COLLATE NOCASE);

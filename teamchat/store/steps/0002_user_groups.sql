-- User groups: system groups (membership derived from roles) and named groups with stored
-- members and subgroups. Group-valued settings refer to these ids.

CREATE TABLE user_group (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL,
    description     TEXT    NOT NULL DEFAULT '',
    is_system_group INTEGER NOT NULL DEFAULT 0,
    deactivated     INTEGER NOT NULL DEFAULT 0,
    date_created    INTEGER,
    creator_id      INTEGER REFERENCES users(id),
    settings_json   TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(settings_json))
);
CREATE UNIQUE INDEX user_group_name ON user_group (name);

CREATE TABLE user_group_member (
    group_id INTEGER NOT NULL REFERENCES user_group(id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX user_group_member_user ON user_group_member (user_id);

CREATE TABLE user_group_subgroup (
    group_id    INTEGER NOT NULL REFERENCES user_group(id) ON DELETE CASCADE,
    subgroup_id INTEGER NOT NULL REFERENCES user_group(id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, subgroup_id),
    CHECK (group_id != subgroup_id)
) WITHOUT ROWID;
CREATE INDEX user_group_subgroup_sub ON user_group_subgroup (subgroup_id);

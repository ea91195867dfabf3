-- Custom emoji ("realm emoji"), images stored in the database like uploads and avatars.
-- Removing an emoji only deactivates it: messages and reactions that use it keep its
-- image, and a new emoji may then take the name.

CREATE TABLE realm_emoji (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL CHECK (name <> ''),
    -- The image's file name in its URL: random, so images cannot be enumerated.
    file_name    TEXT    NOT NULL UNIQUE,
    content_type TEXT    NOT NULL,
    author_id    INTEGER REFERENCES users(id),
    date_created INTEGER NOT NULL,
    deactivated  INTEGER NOT NULL DEFAULT 0 CHECK (deactivated IN (0, 1))
);
-- At most one active emoji per name.
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (name) WHERE deactivated = 0;

-- Kept apart from realm_emoji so listing emoji never reads image bytes.
CREATE TABLE realm_emoji_image (
    emoji_id INTEGER PRIMARY KEY REFERENCES realm_emoji(id) ON DELETE CASCADE,
    data     BLOB    NOT NULL,
    -- The first frame of an animated image (same format), else NULL.
    still    BLOB
);

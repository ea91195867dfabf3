-- Uploaded images and their thumbnails (Zulip's ImageAttachment). An upload whose header reads
-- as a PNG, GIF, JPEG or WebP image gets a row here; its thumbnails are made in the background
-- (state 'pending'), then stored beside it ('ready'), or it is judged undecodable ('failed').
CREATE TABLE image_attachment (
    attachment_id INTEGER PRIMARY KEY REFERENCES attachment(id) ON DELETE CASCADE,
    content_type  TEXT NOT NULL,
    width         INTEGER NOT NULL CHECK (width > 0),
    height        INTEGER NOT NULL CHECK (height > 0),
    frames        INTEGER NOT NULL CHECK (frames > 0),
    state         TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'ready', 'failed'))
);

CREATE TABLE image_thumbnail (
    attachment_id INTEGER NOT NULL REFERENCES image_attachment(attachment_id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    width         INTEGER NOT NULL,
    height        INTEGER NOT NULL,
    data          BLOB NOT NULL,
    PRIMARY KEY (attachment_id, name)
);

-- Uploads from before thumbnails: the server reads each once in the background and records
-- the images among them (then drops the row here).
CREATE TABLE image_backfill (
    attachment_id INTEGER PRIMARY KEY REFERENCES attachment(id) ON DELETE CASCADE
);
INSERT INTO image_backfill (attachment_id) SELECT id FROM attachment;

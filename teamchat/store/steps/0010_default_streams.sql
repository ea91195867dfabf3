-- Default channels: every new member is subscribed to these (public channels only).

CREATE TABLE default_stream (
    stream_id INTEGER PRIMARY KEY REFERENCES stream(id) ON DELETE CASCADE
) WITHOUT ROWID;

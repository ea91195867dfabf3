-- Events of changes made by another process (the `teamchat admin` CLI), waiting for the
-- running server to publish them to its live queues (see teamchat/store/change_log.py).

CREATE TABLE change_log (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT    NOT NULL CHECK (kind IN ('publish', 'drop_queues')),
    payload_json  TEXT    NOT NULL,
    audience_json TEXT    NOT NULL,
    created_at    REAL    NOT NULL
);

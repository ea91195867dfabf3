-- Organization exports requested through POST /export/realm (Zulip's RealmExport): their
-- state, and the finished tarball's bytes in chunks (served like an upload).
CREATE TABLE realm_export (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    acting_user_id INTEGER NOT NULL REFERENCES users(id),
    export_type    INTEGER NOT NULL CHECK (export_type IN (1, 2)),
    -- Zulip's RealmExport.status: 1 requested, 2 started, 3 succeeded, 4 failed, 5 deleted.
    status         INTEGER NOT NULL DEFAULT 1 CHECK (status BETWEEN 1 AND 5),
    date_requested INTEGER NOT NULL,
    date_succeeded INTEGER,
    date_failed    INTEGER,
    date_deleted   INTEGER,
    -- The organization URL the request used: export_url starts with it.
    realm_url      TEXT    NOT NULL,
    -- Where the tarball is served: /user_avatars/exports/{realm_id}/{secret}/{file_name}.
    secret         TEXT    NOT NULL UNIQUE,
    file_name      TEXT,
    size           INTEGER
);
CREATE INDEX realm_export_requested ON realm_export (date_requested);

CREATE TABLE realm_export_chunk (
    export_id INTEGER NOT NULL REFERENCES realm_export(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    data      BLOB    NOT NULL,
    PRIMARY KEY (export_id, seq)
) WITHOUT ROWID;

-- Settings of this server (not of the organization) that the server pins itself, such as
-- the external URL chosen at first start: links that leave the server use it.
CREATE TABLE server_setting (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

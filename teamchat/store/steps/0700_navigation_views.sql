-- Navigation views (GET/POST /navigation_views, PATCH/DELETE /navigation_views/{fragment}):
-- a user's pinned or hidden left-sidebar views, built-in (no name) or custom (named).

CREATE TABLE navigation_view (
    id        INTEGER PRIMARY KEY,
    user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    fragment  TEXT    NOT NULL CHECK (fragment <> ''),
    is_pinned INTEGER NOT NULL CHECK (is_pinned IN (0, 1)),
    name      TEXT    CHECK (name IS NULL OR name <> ''),
    UNIQUE (user_id, fragment)
);

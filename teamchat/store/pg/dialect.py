"""The store's SQL, as PostgreSQL reads it: translated once per SQL string, then cached.

Store SQL is written once, for both backends: `?` placeholders and SQL both accept wherever
there is such a form. What SQLite spells its own way and PostgreSQL cannot read as written is
rewritten here, one rule per concept (and nowhere else):

- placeholders: `?` -> `$1, $2...` (outside quoted strings and identifiers);
- `INSERT OR IGNORE INTO t ...` -> `INSERT INTO t ... ON CONFLICT DO NOTHING`;
- `x = ? COLLATE NOCASE` (ASCII case-insensitive equality) -> `lower(x) = lower(?)`;
- `x IN ()` / `x NOT IN ()` (an empty list) -> `FALSE` / `TRUE`;
- `~?` (a parameter PostgreSQL cannot type under a unary operator) -> `~CAST(? AS BIGINT)`;
- `IS ?` / `IS NOT ?` (NULL-safe comparison) -> `IS [NOT] DISTINCT FROM ?`;
- `LIKE` (case-insensitive in SQLite) -> `ILIKE`;
- JSON: `json_extract(col, '$.key')` -> the compat functions in `pg/compat.sql` (a number
  inside `coalesce(..., N)`, the value as SQLite shows it as text elsewhere), `json_each(?)`
  of an id list -> `teamchat_json_ids(?)`, appending to a JSON array -> `jsonb ||`;
- full-text search: FTS5's `message_fts MATCH ?` -> `message.search @@ teamchat_fts_query(?)`
  (a tsvector column with a GIN index; English stemming like SQLite's porter tokenizer);
- `group_concat(x[, sep])` -> `string_agg(x::text, sep)`;
- `PRAGMA user_version` -> the schema version table;
- `PRAGMA defer_foreign_keys = ON` -> `SET CONSTRAINTS ALL DEFERRED` (see `pg/schema.py`).

An INSERT run through `Conn.execute` (which answers the new row's id, SQLite's lastrowid)
gains `RETURNING id` when its table has an `id` column (see `PgDialect.insert_returning_id`).
"""

from __future__ import annotations

import re

from teamchat.lib.integers import is_ascii_digits

_STATEMENTS = {
    "PRAGMA user_version": "SELECT version FROM teamchat_schema",
    # Foreign keys checked at COMMIT (bulk loads in id order): every one is DEFERRABLE.
    "PRAGMA defer_foreign_keys = ON": "SET CONSTRAINTS ALL DEFERRED",
    # Merging FTS5 segments: PostgreSQL's GIN index has none to merge.
    "INSERT INTO message_fts (message_fts) VALUES ('optimize')": "SELECT 1",
}
# Full-text search: SQLite's FTS5 table `message_fts` -> the tsvector column `message.search`.
_SEARCH = (
    ("m.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ?)",
     "m.search @@ teamchat_fts_query(?)"),
    ("FROM message_fts f JOIN message m ON m.id = f.rowid", "FROM message m"),
    ("message_fts MATCH ?", "m.search @@ teamchat_fts_query(?)"),
    ("f.rowid", "m.id"),
)  # fmt: skip
_OR_IGNORE = re.compile(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO\b", re.IGNORECASE)
_RETURNING = re.compile(r"\sRETURNING\s", re.IGNORECASE)
_NOCASE_EQ = re.compile(r"([\w.]+)\s*=\s*\?\s+COLLATE\s+NOCASE", re.IGNORECASE)
_IS_PARAM = re.compile(r"\bIS\s+(NOT\s+)?\?", re.IGNORECASE)
_LIKE = re.compile(r"\bLIKE\b", re.IGNORECASE)
_JSON_NUMBER = re.compile(
    r"coalesce\(\s*json_extract\(\s*([\w.]+)\s*,\s*'\$\.(\w+)'\s*\)\s*,\s*(-?\d+)\s*\)",
    re.IGNORECASE,
)
_JSON_TEXT = re.compile(r"json_extract\(\s*([\w.]+)\s*,\s*'\$\.(\w+)'\s*\)", re.IGNORECASE)
_JSON_EACH = re.compile(r"\bjson_each\(\s*\?\s*\)", re.IGNORECASE)
_JSON_APPEND = re.compile(
    r"json_insert\(\s*(coalesce\([\w.]+,\s*'\[\]'\))\s*,\s*'\$\[#\]'\s*,\s*json\(\?\)\s*\)",
    re.IGNORECASE,
)
_GROUP_CONCAT = re.compile(r"\bgroup_concat\(\s*([\w.]+)\s*(?:,\s*('[^']*')\s*)?\)", re.IGNORECASE)
_NOT_IN_EMPTY = re.compile(r"[\w.]+\s+NOT\s+IN\s*\(\s*\)", re.IGNORECASE)
_IN_EMPTY = re.compile(r"[\w.]+\s+IN\s*\(\s*\)", re.IGNORECASE)
_INSERT_TABLE = re.compile(r"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+(\w+)", re.IGNORECASE)
# A quoted string, a quoted identifier, or a placeholder.
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?")


def _rewrite(sql: str) -> str:
    """The SQLite-only forms, in PostgreSQL's words (placeholders still `?`)."""
    if sql.strip() in _STATEMENTS:
        return _STATEMENTS[sql.strip()]
    if _OR_IGNORE.match(sql):
        sql = _OR_IGNORE.sub("INSERT INTO", sql, count=1)
        returning = _RETURNING.search(sql)
        if returning is None:
            sql = sql.rstrip().rstrip(";") + " ON CONFLICT DO NOTHING"
        else:
            at = returning.start()
            sql = sql[:at] + " ON CONFLICT DO NOTHING" + sql[at:]
    if "message_fts" in sql:
        for fts5, tsvector in _SEARCH:
            sql = sql.replace(fts5, tsvector)
    if "()" in sql:
        sql = _IN_EMPTY.sub("FALSE", _NOT_IN_EMPTY.sub("TRUE", sql))
    sql = sql.replace("~?", "~CAST(? AS BIGINT)")
    sql = _NOCASE_EQ.sub(r"lower(\1) = lower(?)", sql)
    sql = _IS_PARAM.sub(
        lambda m: "IS NOT DISTINCT FROM ?" if not m[1] else "IS DISTINCT FROM ?", sql
    )
    sql = _LIKE.sub("ILIKE", sql)
    sql = _JSON_NUMBER.sub(r"coalesce(teamchat_json_number(\1, '\2'), \3)", sql)
    sql = _JSON_TEXT.sub(r"teamchat_json_text(\1, '\2')", sql)
    sql = _JSON_EACH.sub("teamchat_json_ids(?)", sql)
    sql = _JSON_APPEND.sub(r"(\1::jsonb || jsonb_build_array(?::jsonb))::text", sql)
    return _GROUP_CONCAT.sub(
        lambda m: f"string_agg({m[1]}::text, {m[2] or chr(39) + ',' + chr(39)})", sql
    )


def _number_placeholders(sql: str) -> str:
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match[0] != "?":
            return match[0]
        count += 1
        return f"${count}"

    return _TOKENS.sub(number, sql)


# SQL strings remembered per database: the store builds some with their ids inline.
CACHE_SIZE = 4096


class PgDialect:
    """Translations for one database's schema (which tables have an `id` column), cached."""

    def __init__(self, id_tables: frozenset[str]) -> None:
        self.id_tables = id_tables
        self._plain: dict[str, str] = {}
        self._returning: dict[str, str | None] = {}

    def sql(self, sql: str) -> str:
        """`sql` as PostgreSQL reads it."""
        found = self._plain.get(sql)
        if found is None:
            if len(self._plain) >= CACHE_SIZE:
                self._plain.clear()
            found = self._plain[sql] = _number_placeholders(_rewrite(sql))
        return found

    def insert_returning_id(self, sql: str) -> str | None:
        """For an INSERT into a table with an `id` column and no RETURNING of its own: the
        statement answering the new id (SQLite's lastrowid); else None."""
        if sql in self._returning:
            return self._returning[sql]
        translated = self.sql(sql)
        table = _INSERT_TABLE.match(sql)
        answer = None
        if table and table[1] in self.id_tables and not _RETURNING.search(translated):
            answer = translated.rstrip().rstrip(";") + " RETURNING id"
        if len(self._returning) >= CACHE_SIZE:
            self._returning.clear()
        self._returning[sql] = answer
        return answer


def rowcount(status: str) -> int:
    """Rows changed, from a command status such as 'UPDATE 3' or 'INSERT 0 1'."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if is_ascii_digits(last) else 0

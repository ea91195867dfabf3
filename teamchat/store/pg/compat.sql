-- Functions the store's SQL relies on that PostgreSQL lacks or names otherwise (see
-- dialect.py). Recreated at every start, before the migration steps: code, never state.

CREATE OR REPLACE FUNCTION json_valid(text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    PERFORM $1::json;
    RETURN true;
EXCEPTION WHEN others THEN
    RETURN false;
END $$;

-- json_extract(doc, '$.key') where a number is wanted: numbers as they are, true/false as 1/0.
CREATE OR REPLACE FUNCTION teamchat_json_number(text, text) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE json_typeof($1::json -> $2)
        WHEN 'number' THEN ($1::json ->> $2)::numeric::bigint
        WHEN 'boolean' THEN CASE WHEN ($1::json ->> $2)::boolean THEN 1 ELSE 0 END
    END
$$;

-- json_extract(doc, '$.key') as SQLite shows it, as text: strings bare, true/false as 1/0,
-- null as NULL, numbers, arrays and objects as their JSON.
CREATE OR REPLACE FUNCTION teamchat_json_text(text, text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE json_typeof($1::json -> $2)
        WHEN 'string' THEN $1::json ->> $2
        WHEN 'boolean' THEN CASE WHEN ($1::json ->> $2)::boolean THEN '1' ELSE '0' END
        WHEN 'null' THEN NULL
        ELSE ($1::json -> $2)::text
    END
$$;

-- json_each(?) of a JSON array of ids: one bigint row per element.
CREATE OR REPLACE FUNCTION teamchat_json_ids(text) RETURNS TABLE (value bigint)
LANGUAGE sql IMMUTABLE AS $$
    SELECT element::bigint FROM json_array_elements_text($1::json) AS element
$$;

-- Statement-level triggers on the watched tables (and the change log) call this: it records
-- the table in a transaction-local setting (read by our writer just before COMMIT: our own
-- caches) and notifies other processes' listeners at COMMIT (their caches, their change log).
CREATE OR REPLACE FUNCTION teamchat_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('teamchat.changed',
        coalesce(current_setting('teamchat.changed', true), '') || TG_TABLE_NAME || ',', true);
    PERFORM pg_notify('teamchat_changed', TG_TABLE_NAME);
    RETURN NULL;
END $$;

-- A search query as the store writes it for SQLite's FTS5 (quoted phrases joined by AND:
-- actions/messages/message_fetch.fts_query) as a tsquery: every phrase, in order, required.
-- NULL (matches nothing) when no phrase has a searchable word.
CREATE OR REPLACE FUNCTION teamchat_fts_query(text) RETURNS tsquery
LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg('(' || q::text || ')', ' & ')::tsquery
    FROM (SELECT phraseto_tsquery('english'::regconfig, m[1]) AS q
          FROM regexp_matches($1, '"([^"]*)"', 'g') AS m) AS phrases
    WHERE q::text <> ''
$$;

-- Merge the search index into one segment once. Databases filled in bulk (an import, a
-- benchmark, years of messages each inserted on its own) hold many segments, and every
-- search reads each of them; newest-first searches read most of them whole.
INSERT INTO message_fts (message_fts) VALUES ('optimize');

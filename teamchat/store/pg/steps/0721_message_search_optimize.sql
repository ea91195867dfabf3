-- PostgreSQL variant of steps/0721_message_search_optimize.sql: that step merges SQLite's
-- full-text index segments; PostgreSQL has no such index to merge. Nothing to do.
SELECT 1;

"""The PostgreSQL store: the same contract as the SQLite one (`teamchat.store.conn`)."""

-- Bots' default channels (Zulip's default_sending_stream, default_events_register_stream,
-- default_all_public_streams): where a bot's messages go without `to`, and what its event
-- queues follow without a narrow.

CREATE TABLE bot_default (
    bot_id                    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    sending_stream_id         INTEGER REFERENCES stream(id) ON DELETE SET NULL,
    events_register_stream_id INTEGER REFERENCES stream(id) ON DELETE SET NULL,
    all_public_streams        INTEGER NOT NULL DEFAULT 0 CHECK (all_public_streams IN (0, 1))
);

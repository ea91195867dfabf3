-- Long-term idle people ("soft deactivation", as Zulip calls it): a channel message that
-- carries no flag for an idle subscriber gets no user_message row for them; the row is
-- implied (unread, no flags) until they come back, when the missing rows are written in one
-- transaction. See teamchat/store/idle_users.py for the rule and where it is kept exact.
CREATE TABLE idle_user (
    user_id          INTEGER PRIMARY KEY REFERENCES users(id),
    -- Every message up to this id has all of the user's rows written out.
    complete_through INTEGER NOT NULL
);

-- Messages whose rows are all written out, for everyone: a message moved to another channel
-- (its implied rows are written first, at the move; none are implied after it).
CREATE TABLE message_rows_complete (
    message_id INTEGER PRIMARY KEY REFERENCES message(id) ON DELETE CASCADE
);

-- When each person last came back from being idle: someone active without presence (a
-- script using the API) is made idle again at most once per idle period.
CREATE TABLE idle_user_return (
    user_id     INTEGER PRIMARY KEY REFERENCES users(id),
    returned_at INTEGER NOT NULL
);

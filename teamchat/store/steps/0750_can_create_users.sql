-- Zulip's UserProfile.can_create_users (feature level 36): POST /users needs it besides the
-- administrator role. Granted by the server operator (`teamchat admin can-create-users`).
-- The owners an organization already has keep creating users as before.
ALTER TABLE users ADD COLUMN can_create_users INTEGER NOT NULL DEFAULT 0;
UPDATE users SET can_create_users = 1 WHERE role = 100 AND is_bot = 0;

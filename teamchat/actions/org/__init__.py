"""Organization actions: realm settings, permissions, user groups, invitations, emoji,
linkifiers and the system bots."""

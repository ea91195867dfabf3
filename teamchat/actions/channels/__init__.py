"""Channel actions: channels, subscriptions, folders, default channels and their events."""

"""People actions: accounts, bots, settings, presence, status, profile data, push devices."""

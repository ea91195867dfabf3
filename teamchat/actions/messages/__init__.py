"""Message actions: sending, fetching, editing, deleting, flags, reactions, topics, uploads."""

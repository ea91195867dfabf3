"""Pure helpers: no I/O, no teamchat imports beyond other lib modules."""

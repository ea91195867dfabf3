"""Importing an organization from Zulip's `manage.py export` format: the plan (ids and
value conversions), the tables, the files (uploads, emoji, avatars) and the extras."""

"""Organization exports in Zulip's `manage.py export` format: the writer (CLI and API) and
the API's export records."""

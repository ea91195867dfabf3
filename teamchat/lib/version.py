"""What this server claims to be: Zulip's version fields, read by every client."""

from __future__ import annotations

from teamchat import __version__

# The Zulip API feature level we implement (see README, "Feature level"). Clients gate
# behaviour on it; the mobile app refuses anything below 277.
FEATURE_LEVEL = 420
# zulip-compat: clients parse the leading "major.minor"; the suffix names us.
ZULIP_VERSION = f"11.0-teamchat-{__version__}"
# Not a fork of Zulip's code, so the merge base is our own version (SPEC: equals the version).
MERGE_BASE = ZULIP_VERSION

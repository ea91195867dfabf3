"""ChangeFeed: the server's side of the change log. Events that the admin CLI (another
process, whose broker reaches no client) recorded are published to this server's live
queues, in log order.

Every server process on the database reads the log with a cursor of its own (the newest row
it has published), and publishes to its own queues only; rows are dropped by age when the
CLI appends (`store/change_log.STALE_AFTER_SECS`), never because one process read them.

Publishing happens while this process's writer is held, like every action's events, so a
queue being registered sees each change either in its initial state or as an event.
"""

from __future__ import annotations

import msgspec

from teamchat.events.shared import replay_here
from teamchat.lib.api_types import JsonDict
from teamchat.runtime import Runtime
from teamchat.store import change_log


class ChangeFeed:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.cursor = 0  # the newest row published (or there at start)

    async def start(self) -> None:
        """Skip rows left from before this server started: no queue could want them."""
        async with self.rt.db.read() as conn:
            self.cursor = await change_log.last_id(conn)

    async def publish_new(self) -> int:
        """Publish every row after the cursor; return how many."""
        async with self.rt.db.read() as conn:
            if await change_log.last_id(conn) <= self.cursor:
                return 0
        published = 0
        async with self.rt.db.writes_paused():
            while True:
                async with self.rt.db.read() as conn:
                    rows = await change_log.list_after(conn, self.cursor)
                if not rows:
                    return published
                self.cursor = rows[-1].id
                published += len(rows)
                for row in rows:
                    payload = msgspec.json.decode(row.payload_json, type=JsonDict)
                    audience = msgspec.json.decode(row.audience_json, type=JsonDict)
                    replay_here(self.rt.broker, row.kind, payload, audience)

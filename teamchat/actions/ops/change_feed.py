"""ChangeFeed: the server's side of the change log. Events that the admin CLI (another
process, whose broker reaches no client) recorded are published to this server's live
queues, in log order, and pruned.

Publishing happens inside a write transaction, like every action's events, so a queue being
registered sees each change either in its initial state or as an event.
"""

from __future__ import annotations

import msgspec

from teamchat.events.broker import replay
from teamchat.lib.api_types import JsonDict
from teamchat.runtime import Runtime
from teamchat.store import change_log


class ChangeFeed:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def start(self) -> None:
        """Forget rows left from before this server started: no queue could want them."""
        async with self.rt.db.write() as tx:
            await change_log.prune(tx, await change_log.last_id(tx))

    async def publish_new(self) -> int:
        """Publish and prune every row in the log; return how many."""
        async with self.rt.db.read() as conn:
            if await change_log.last_id(conn) == 0:
                return 0
        async with self.rt.db.write() as tx:
            rows = await change_log.list_after(tx, 0)
            if not rows:
                return 0
            await change_log.prune(tx, rows[-1].id)
            decoded = [
                (
                    row.kind,
                    msgspec.json.decode(row.payload_json, type=JsonDict),
                    msgspec.json.decode(row.audience_json, type=JsonDict),
                )
                for row in rows
            ]

            def publish() -> None:
                for kind, payload, audience in decoded:
                    replay(self.rt.broker, kind, payload, audience)

            tx.after_commit(publish)
        return len(rows)

// node --test: how messages are laid out (day separators, recipient headers, sender lines).
import assert from "node:assert/strict";
import { test } from "node:test";

import { layoutRows } from "../../teamchat/web/static/js/grouping.js";

const DAY = 86400;
const msg = (id, ts, sender, topic = "t") => ({
  id,
  timestamp: ts,
  sender_id: sender,
  type: "stream",
  stream_id: 1,
  subject: topic,
});

test("a new day, a new topic or a new sender start a group", () => {
  const base = 1_700_000_000 - (1_700_000_000 % DAY) + 3600;
  const rows = layoutRows([
    msg(1, base, 5),
    msg(2, base + 60, 5),
    msg(3, base + 120, 6),
    msg(4, base + 180, 6, "other"),
    msg(5, base + DAY, 6, "other"),
    msg(6, base + DAY + 3600, 6, "other"),
  ]);
  const kinds = rows.map((r) => (r.kind === "message" ? `m${r.message.id}${r.showSender ? "*" : ""}` : r.kind));
  assert.deepEqual(kinds, [
    "day", "recipient", "m1*", "m2", "m3*", "recipient", "m4*",
    "day", "recipient", "m5*", "m6*",
  ]);
});

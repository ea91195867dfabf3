"""Measure the Markdown renderer: render a realistic mix of messages and print messages/second.

Usage: python scripts/bench_render.py [--messages 2000] [--rounds 3] [--by-kind] [--images]
                                      [--root CHECKOUT]
The mix: short chat lines, mentions, channel links, emoji, links, linkifiers, lists, quotes,
code blocks and the odd long message, rendered with a realm of 200 users and 50 channels.
--by-kind prints the cost of one message of each kind instead, as the median CPU time of one
render (this thread's CPU, so other processes on a shared machine count for little): the
mix, plain text, a highlighted code block, math (a new formula, and one seen before), links
(a URL, a bare domain, a named link), images (another site's, an upload), video links
(YouTube, Vimeo) and a global time; every kind with image previews on.
With --images, every message links an image (another site's, or an upload, linked or with
`![alt](url)`), rendered with image previews on where the renderer has them.
--root renders with another checkout's teamchat (e.g. the main branch) for an A/B
comparison: run both, interleaved, and compare the medians.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if "--root" in sys.argv[:-1]:
    ROOT = Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
sys.path.insert(0, str(ROOT))
from teamchat.render.markdown import (  # noqa: E402
    Linkifier,
    MentionTarget,
    RealmEmoji,
    RenderContext,
    StreamTarget,
    render_markdown,
)

TEMPLATES = [
    "ok",
    "sounds good to me :+1:",
    "Thanks @**{user}**, merged. See #{issue} for the follow-up.",
    "@**{user}** can you take a look at #**{stream}>deploy {issue}**? :eyes:",
    "I pushed a fix: https://github.com/example/project/pull/{issue}",
    "**Heads up:** the build on `main` is broken since {issue} commits ago :fire:",
    "Standup:\n* done: reviewed {issue}\n* doing: release notes\n* blocked: nothing",
    "> did we decide on the schema?\n\nyes, see [the doc](https://docs.example.com/schema/{issue})",
    "```python\ndef handler(request):\n    return {{'status': {issue}}}\n```\nthis is what I meant",
    "/me is out for lunch :pizza:",
    "@*backend* please review before Friday, it touches #**{stream}**",
    "Numbers for this week:\n\n| metric | value |\n|---|---|\n| p50 | {issue} ms |\n| p99 | 2 s |",
    "lol 😂😂 that is exactly what happened last time :tada: :tada:",
    "1. check the logs\n2. restart the worker\n3. tell @**{user}**",
    "```spoiler Answer\nIt was DNS. It is always DNS.\n```",
    " ".join(["This is a longer message about the migration plan, with some detail."] * 8),
]


IMAGE_TEMPLATES = [
    "look at this https://example.com/photos/{issue}.png",
    "[screenshot.png](/user_uploads/2/ab/{issue}/screenshot.png)",
    "![diagram](/user_uploads/2/cd/{issue}/diagram.jpg) as discussed with @**{user}**",
    "before: https://example.com/a/{issue}.jpg\nafter: https://example.com/b/{issue}.jpg",
]


def with_image_previews(ctx: RenderContext, messages: list[str]) -> RenderContext:
    """`ctx` with image previews on and every upload in `messages` known (if supported)."""
    names = {field.name for field in dataclasses.fields(RenderContext)}
    if "image_preview" not in names:
        return ctx  # a renderer without image previews: the same messages as plain links
    from teamchat.render.markdown import UploadPreview

    uploads = {}
    for content in messages:
        for part in content.split("/user_uploads/")[1:]:
            path = part.split(")")[0]
            url = f"/user_uploads/thumbnail/{path}/840x560.webp"
            uploads[path] = UploadPreview(1600, 1200, "image/png", False, url)
    return dataclasses.replace(ctx, image_preview=True, upload_previews=uploads, camo_key=b"k")


def build_context(rng: random.Random) -> RenderContext:
    """Build a realm-sized context: 200 users, 50 channels, a few emoji and linkifiers."""
    users = [MentionTarget(user_id, f"User {user_id}") for user_id in range(1, 201)]
    streams = [StreamTarget(stream_id, f"team {stream_id}") for stream_id in range(1, 51)]
    return RenderContext(
        users_by_name={user.full_name.casefold(): [user] for user in users},
        users_by_id={user.user_id: user for user in users},
        groups_by_name={"backend": 1, "frontend": 2},
        streams_by_name={stream.name: stream for stream in streams},
        realm_emoji={"shipit": RealmEmoji(1, "/user_avatars/1/emoji/images/1.png")},
        linkifiers=[
            Linkifier(r"#(?P<id>[0-9]+)", "https://github.com/example/project/issues/{id}"),
            Linkifier(r"JIRA-(?P<id>[0-9]+)", "https://jira.example.com/browse/JIRA-{id}"),
        ],
        alert_words={user.user_id: ["deploy", "outage"] for user in users[:20]},
        realm_url="https://chat.example.com",
    )


def build_messages(count: int, rng: random.Random, templates: list[str]) -> list[str]:
    """Fill the templates with random users, channels and numbers."""
    return [
        rng.choice(templates).format(
            user=f"User {rng.randint(1, 200)}",
            stream=f"team {rng.randint(1, 50)}",
            issue=rng.randint(1, 9999),
        )
        for _ in range(count)
    ]


KINDS = {
    "mix (the templates above)": TEMPLATES,
    "plain (no code or math)": [t for t in TEMPLATES if "```" not in t and "http" not in t],
    "code block (Python)": [
        "```python\ndef handler(request):\n    return {{'status': {issue}}}\n```"
    ],
    "math, seen before": ["the area is $$\\pi r^2$$"],
    "link (URL)": ["see https://github.com/example/project/pull/{issue} for it"],
    "link (bare domain)": ["the docs are at docs.example.com/{issue} now"],
    "link (named)": ["see [the doc](https://docs.example.com/schema/{issue})"],
    "image (other site)": ["look at this https://example.com/photos/{issue}.png"],
    "image (upload)": ["[shot.png](/user_uploads/2/ab/{issue}/shot.png)"],
    "video (YouTube)": ["watch https://www.youtube.com/watch?v=dQw4w9Wg{issue}&t=42s"],
    "video (Vimeo)": ["watch https://vimeo.com/7697{issue}"],
    "global time": ["meet at <time:2025-01-31T15:00:00+01:00>, not <time:31 Dec 10:00 CET>"],
}


def cpu_median_micros(contents: list[str], ctx: RenderContext, repeat: int = 5) -> float:
    """The median CPU time of one render over `repeat` passes over `contents`, in µs."""
    samples = []
    for _ in range(repeat):
        for content in contents:
            start = time.thread_time_ns()
            render_markdown(content, ctx)
            samples.append(time.thread_time_ns() - start)
    return statistics.median(samples) / 1000


def by_kind(ctx: RenderContext, rng: random.Random) -> None:
    """Print the median CPU cost of one message of each kind."""
    for kind, templates in KINDS.items():
        contents = [
            rng.choice(templates).format(user="User 7", stream="team 3", issue=rng.randint(1, 99))
            for _ in range(200)
        ]
        kind_ctx = with_image_previews(ctx, contents)
        print(f"{kind:28s} {cpu_median_micros(contents, kind_ctx):8.0f} µs CPU/message (median)")
    fresh = [f"$$x^{{{n}}} + \\frac{{a}}{{{n}}}$$" for n in range(50)]
    cost = cpu_median_micros(fresh, ctx, repeat=1)
    print(f"{'math, a new formula':28s} {cost:8.0f} µs CPU/message (median)")


def main() -> None:
    """Render the mix a few times and report the best rate."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--by-kind", action="store_true")
    parser.add_argument("--images", action="store_true", help="only messages with images")
    parser.add_argument("--root", help="render with this checkout's teamchat (read on import)")
    args = parser.parse_args()
    rng = random.Random(42)
    ctx = build_context(rng)
    if args.by_kind:
        render_markdown("warm up :smile: @**User 1** $$x$$", ctx)  # tables, KaTeX
        by_kind(ctx, rng)
        return
    messages = build_messages(args.messages, rng, IMAGE_TEMPLATES if args.images else TEMPLATES)
    if args.images:
        ctx = with_image_previews(ctx, messages)
    render_markdown("warm up :smile: @**User 1**", ctx)  # builds the emoji tables once
    best = 0.0
    for round_number in range(1, args.rounds + 1):
        start = time.perf_counter()
        for content in messages:
            render_markdown(content, ctx)
        elapsed = time.perf_counter() - start
        rate = len(messages) / elapsed
        best = max(best, rate)
        print(f"round {round_number}: {len(messages)} messages in {elapsed:.2f} s = {rate:.0f}/s")
    print(f"best: {best:.0f} messages/second")


if __name__ == "__main__":
    main()

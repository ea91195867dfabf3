"""Benchmark a big organization: 10,000 people, 1,000 channels, 100 user groups.

Builds the organization through the store layer (bulk inserts, not the API) in a temporary
directory, starts `teamchat serve` on it and measures, as one person of it:
- POST /register with every event type: wall median, server CPU per request (the server
  threads' /proc/<pid>/task/*/schedstat), response bytes;
- GET /users, GET /realm/presence and POST /users/me/presence: the same figures;
- the web client's first load to a usable screen (the left pane's channels, the people list
  and the message list drawn), measured in Chromium through Playwright, as a median of
  `--loads` page loads after logging in once.

Shape of the organization: everyone is in "general" (the realm's first channel); each
person is also in 20 other channels picked at random (about 200,000 subscriptions), the
measured person in 60; 100 user groups of 20 to 500 members; 2,000 people reported
presence in the last minutes, everyone else long ago.

Usage: python scripts/bench_bigorg.py [--people 10000] [--channels 1000] [--groups 100]
                                      [--runs 15] [--loads 5] [--no-browser]

`run(args)` returns the rows (figure, value, notes) for another benchmark to print, e.g.
`run(parser().parse_args(["--runs", "9", "--loads", "3"]))`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from teamchat.actions.org.realm import check_create_realm  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.lib import channels as ch  # noqa: E402
from teamchat.lib.passwords import random_api_key  # noqa: E402
from teamchat.records import Role  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402
from teamchat.store import presence as presence_store  # noqa: E402
from teamchat.store import streams as stream_store  # noqa: E402
from teamchat.store import subscriptions as sub_store  # noqa: E402
from teamchat.store import user_groups as group_store  # noqa: E402
from teamchat.store import users as user_store  # noqa: E402
from teamchat.store import zulip_import as bulk  # noqa: E402
from tests.support.server import free_port  # noqa: E402

PASSWORD = "bench-password"
OWNER_EMAIL = "owner@bench.test"
COLORS = ["#76ce90", "#fae589", "#a6c7e5", "#b0a5fd", "#addfe5", "#f5ce6e", "#c2726a"]
Row = tuple[str, str, str]


class BigRealm(msgspec.Struct):
    owner_id: int
    owner_key: str
    member_email: str
    member_key: str


def _user_rows(first_id: int, people: int, now: int) -> list[tuple[object, ...]]:
    return [
        (first_id + i, f"user{i}@bench.test", f"User {i:05d}", random_api_key(),
         int(Role.MEMBER), 1, 0, None, None, now - i, "", "G", 1, 1, "{}")
        for i in range(people)
    ]  # fmt: skip


async def build_realm(db: Path, people: int, channels: int, groups: int) -> BigRealm:
    """The organization, written through the store's bulk inserts."""
    rng = random.Random(24)
    rt = await Runtime.open_offline(Settings(db_path=db))
    try:
        _, owner = await check_create_realm(
            rt, name="Big", owner_email=OWNER_EMAIL, owner_full_name="Owner",
            owner_password=PASSWORD,
        )  # fmt: skip
        now = int(time.time())
        async with rt.db.write() as tx:
            first_id = max(u.id for u in await user_store.list_users(tx)) + 1
            rows = _user_rows(first_id, people - 1, now)
            await bulk.insert_users(tx, rows)
            person_ids = [owner.id, *(int(r[0]) for r in rows)]  # type: ignore[call-overload]
            names = await stream_store.system_group_names(tx)
            system_ids = {name: gid for gid, name in names.items()}
            settings = msgspec.json.encode(ch.default_group_settings(system_ids, owner.id))
            existing = await stream_store.list_streams(tx)
            stream_ids = [s.id for s in existing]
            for c in range(channels - len(existing)):
                stream_ids.append(await stream_store.insert_stream(
                    tx, name=f"channel {c:04d}", description=f"Channel number {c}",
                    rendered_description=f"<p>Channel number {c}</p>", invite_only=c % 10 == 9,
                    is_web_public=False, history_public_to_subscribers=True,
                    message_retention_days=None, topics_policy="inherit", date_created=now,
                    creator_id=owner.id, settings_json=settings.decode(),
                ))  # fmt: skip
            general = stream_ids[0]
            subs: set[tuple[int, int]] = {(general, uid) for uid in person_ids}
            for uid in person_ids:
                for stream_id in rng.sample(
                    stream_ids, min(len(stream_ids), 60 if uid == owner.id else 20)
                ):
                    subs.add((stream_id, uid))
            for stream_id, members in (await sub_store.subscriber_ids(tx, stream_ids)).items():
                subs -= {(stream_id, uid) for uid in members}  # the first run's own rows
            await bulk.insert_subscriptions(
                tx,
                [(s, u, 1, COLORS[(s + u) % len(COLORS)], 0, 0, None, None, None, None, None)
                 for s, u in sorted(subs)],
            )  # fmt: skip
            for g in range(groups):
                group_id = await group_store.insert_named_group(
                    tx, name=f"group {g:03d}", description=f"Group number {g}",
                    date_created=now, creator_id=owner.id, settings_json="{}",
                )  # fmt: skip
                size = min(len(person_ids), rng.randint(20, 500))
                await group_store.insert_members(tx, group_id, rng.sample(person_ids, size))
            for i, uid in enumerate(person_ids):
                update_id = await presence_store.next_update_id(tx)
                recent = i < 2000
                seen = now - rng.randint(0, 240) if recent else now - rng.randint(1, 90) * 86400
                await presence_store.upsert(
                    tx, uid, last_active_time=seen, last_connected_time=seen,
                    last_update_id=update_id,
                )  # fmt: skip
            await tx.execute("ANALYZE")
        member = rows[0]
        return BigRealm(owner.id, owner.api_key, str(member[1]), str(member[3]))
    finally:
        await rt.close()


async def migrate(db: Path) -> None:
    """Apply new migrations to a kept database (not in the measured server's start)."""
    rt = await Runtime.open_offline(Settings(db_path=db))
    await rt.close()


# --- the server and its CPU ---


def server_cpu_ns(pid: int) -> int:
    """CPU time the server's threads have used, in ns (Linux schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
    return total


def start_server(db: Path, port: int, workdir: Path, core: str | None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TEAMCHAT_API_RATE_LIMIT": "0", "TEAMCHAT_LOG_LEVEL": "warning",
           "TEAMCHAT_LOGIN_IP_RATE_LIMIT": "0"}  # fmt: skip
    pin = ["taskset", "-c", core] if core is not None else []
    command = [*pin, sys.executable, "-m", "teamchat", "--db", str(db), "serve",
               "--port", str(port)]  # fmt: skip
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/v1/server_settings", timeout=1)
            return server
        except httpx.HTTPError:
            time.sleep(0.05)
    server.terminate()
    raise RuntimeError("the server did not answer within a minute")


class Figure(msgspec.Struct):
    wall_ms: float  # median
    cpu_ms: float  # median server CPU per request
    size: int  # response bytes (the last one)


def measure(client: httpx.Client, pid: int, runs: int, method: str, path: str,
            data: dict[str, str] | None = None,
            before: Callable[[int], object] | None = None) -> Figure:  # fmt: skip
    """Medians over `runs` requests (after two to warm up), one at a time; `before(run)`
    runs before each, unmeasured."""
    walls, cpus, size = [], [], 0
    for run in range(runs + 2):
        if before is not None:
            before(run)
        cpu_before = server_cpu_ns(pid)
        started = time.perf_counter()
        response = client.request(method, path, data=data)
        wall = time.perf_counter() - started
        cpu = server_cpu_ns(pid) - cpu_before
        assert response.status_code == 200, response.text[:500]
        size = len(response.content)
        if run >= 2:
            walls.append(wall * 1000)
            cpus.append(cpu / 1e6)
    return Figure(statistics.median(walls), statistics.median(cpus), size)


def api_rows(base: str, realm: BigRealm, pid: int, runs: int) -> list[Row]:
    rows: list[Row] = []
    as_member = httpx.Client(base_url=f"{base}/api/v1", auth=(realm.member_email,
                             realm.member_key), timeout=120)  # fmt: skip
    as_owner = httpx.Client(base_url=f"{base}/api/v1", auth=(OWNER_EMAIL, realm.owner_key),
                            timeout=120)  # fmt: skip
    with as_member, as_owner:
        for who, client in (("owner", as_owner), ("member", as_member)):
            fig = measure(client, pid, runs, "POST", "/register")
            rows.append((f"POST /register, all event types ({who})",
                         f"{fig.cpu_ms:.1f} ms server CPU",
                         f"wall {fig.wall_ms:.1f} ms; {fig.size / 1e6:.2f} MB"))  # fmt: skip

        # The organization-wide parts are rebuilt after a change: a person renames
        # themselves before each of these registers.
        def rename(run: int) -> None:
            as_member.patch("/settings", data={"full_name": f"User 00000 ({run})"})

        fig = measure(as_owner, pid, max(3, runs // 3), "POST", "/register", before=rename)
        rows.append(("POST /register, all event types, after a person's rename (owner)",
                     f"{fig.cpu_ms:.1f} ms server CPU",
                     f"wall {fig.wall_ms:.1f} ms; {fig.size / 1e6:.2f} MB"))  # fmt: skip
        for label, method, path, data in (
            ("GET /users", "GET", "/users", None),
            ("GET /realm/presence", "GET", "/realm/presence", None),
            ("POST /users/me/presence", "POST", "/users/me/presence",
             {"status": "active", "ping_only": "false", "new_user_input": "true"}),
        ):  # fmt: skip
            fig = measure(as_member, pid, runs, method, path, data)
            rows.append((label, f"{fig.cpu_ms:.1f} ms server CPU",
                         f"wall {fig.wall_ms:.1f} ms; {fig.size / 1e3:.0f} kB"))  # fmt: skip
    return rows


# --- the web client ---

USABLE = """() => {
  const loading = [...document.querySelectorAll('#messages .loading')]
    .some((p) => p.textContent.startsWith('Loading messages'));
  const ready = document.querySelector('#left .channels li')
    && document.querySelector('#people li')
    && document.querySelector('#messages article.message, #messages .empty')
    && !loading;
  return ready ? performance.now() : null;
}"""


def browser_rows(base: str, loads: int, screenshot: Path | None) -> list[Row]:
    """Median ms from navigation start to a usable screen, and where the time went."""
    from playwright.sync_api import sync_playwright

    times: list[float] = []
    register_ms: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{base}/login/")
            page.fill("#username", OWNER_EMAIL)
            page.fill("#password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_function(USABLE, timeout=120_000)
            for _ in range(loads):
                page.goto(f"{base}/", wait_until="commit")
                usable = page.wait_for_function(USABLE, polling="raf", timeout=120_000)
                times.append(float(usable.json_value()))
                register_ms.append(float(page.evaluate(
                    """() => performance.getEntriesByType('resource')
                         .filter((e) => e.name.endsWith('/json/register'))
                         .map((e) => e.responseEnd - e.startTime)[0] ?? NaN""")))  # fmt: skip
            if screenshot is not None:
                page.screenshot(path=str(screenshot))
        finally:
            browser.close()
    return [(
        "web client first load to a usable screen", f"{statistics.median(times):.0f} ms",
        f"of which /json/register fetched in {statistics.median(register_ms):.0f} ms;"
        f" {loads} loads",
    )]  # fmt: skip


# --- the run ---


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--channels", type=int, default=1_000)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--server-core", default=None, help="pin the server to this core")
    parser.add_argument("--screenshot", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None, help="keep/reuse the database here")
    return parser


def run(args: argparse.Namespace) -> list[Row]:
    """Build the organization, start a server on it, return the measured rows."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        db = workdir / "teamchat.db"
        started = time.monotonic()
        kept = args.keep.with_suffix(".json") if args.keep is not None else None
        if args.keep is not None and kept is not None and kept.exists():
            shutil.copyfile(args.keep, db)
            realm = msgspec.json.decode(kept.read_bytes(), type=BigRealm)
            asyncio.run(migrate(db))
        else:
            realm = asyncio.run(build_realm(db, args.people, args.channels, args.groups))
            if args.keep is not None and kept is not None:
                shutil.copyfile(db, args.keep)
                kept.write_bytes(msgspec.json.encode(realm))
        built = time.monotonic() - started
        rows: list[Row] = [(
            f"big organization: {args.people:,} people, {args.channels:,} channels,"
            f" {args.groups} groups", "", f"built through the store in {built:.1f} s",
        )]  # fmt: skip
        port = free_port()
        server = start_server(db, port, workdir, args.server_core)
        base = f"http://127.0.0.1:{port}"
        try:
            rows += api_rows(base, realm, server.pid, args.runs)
            if not args.no_browser:
                rows += browser_rows(base, args.loads, args.screenshot)
        finally:
            server.terminate()
            server.wait(15)
    return rows


def main() -> None:
    args = parser().parse_args()
    load = os.getloadavg()[0]
    rows = run(args)
    print(f"\nload average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print("| figure | teamchat | notes |\n|---|---|---|")
    for row in rows:
        print(f"| {row[0]} | {row[1]} | {row[2]} |")


if __name__ == "__main__":
    main()

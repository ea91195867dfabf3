"""Load benchmark: sends, fan-out, idle queues and authenticated requests against one
`teamchat serve`, each figure next to the floor of our own stack measured in the same run.

The floor is a bare Litestar endpoint that parses a urlencoded form and checks HTTP Basic
credentials, under uvicorn with the same options `teamchat serve` uses. The server (and the
floor) run pinned to core 0; this driver and wrk run on core 1 (`taskset`). The organization
is written through the store layer before the server starts: `--listeners` max + 1 users;
sends go to a channel of 33 of them (33 user_message rows a message), each request from the
next of its first 32 members in turn (N connections, 32 senders), the fan-out to a channel of
everyone.

Rows (medians of `--runs` runs of `--secs` seconds each):
- floor: POST form + Basic auth, req/s (32 connections)
- GET /users/me: req/s (32 connections) and its ratio to the floor
The floor, GET /users/me and the send rows also give the server's CPU per request and the
floor's CPU per request divided by it ("CPU x floor"): on a busy machine the server gets
less of its core than the driver expects, and this ratio moves far less than req/s.
- send to a 33-member channel, 1 / 8 / 32 connections: msg/s and acknowledgement p50 / p99
  (wrk --latency); the 32-connection row is the issue's "32 senders, 33 recipient rows"
- fan-out to N long-polling listeners, one sender at `--rate` msg/s: p50 / p99 send->receive
  (every message must reach every listener)
- N idle registered queues (on a freshly started server): server RSS and server CPU per
  register
- idle RSS after start
- cold start: a fresh `teamchat serve` process to its first answered request (`--starts`)
- a big organization (`--bigorg people,channels,groups`, 10,000 / 1,000 / 100 by default;
  scripts/bench_bigorg.py builds it through the store): register, GET /users, presence in
  server CPU per request, and the web client's first load in Chromium (`--no-browser` skips it)

Usage: python scripts/bench_load.py [--runs 3] [--secs 10] [--listeners 10,100,1000]
                                    [--queues 10000] [--rate 20] [--starts 7]
                                    [--bigorg 10000,1000,100] [--bigorg-keep PATH] [--no-browser]
       python scripts/bench_load.py [--db postgresql://...] --processes 2
           (sends and fan-out on SQLite, and on PostgreSQL with 1 and N processes: see
           scripts/bench_processes.py)
Needs wrk (Debian: apt-get install wrk).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts import bench_bigorg  # noqa: E402
from scripts.bench_cold_start import start_to_first_answer  # noqa: E402
from scripts.bench_messages import add_channel, add_people  # noqa: E402
from teamchat.config import Settings  # noqa: E402
from teamchat.lib.passwords import random_api_key  # noqa: E402
from teamchat.runtime import Runtime  # noqa: E402
from tests.support.server import free_port  # noqa: E402

SERVER_CORE, DRIVER_CORE = "0", "1"
SEND_CHANNEL_SIZE = 33  # recipient rows of every send
SENDERS = 32  # the send rows' requests come from this many people in turn
FLOOR_APP = """
import base64, hmac
from litestar import Litestar, Request, post
from litestar.response import Response

EXPECTED = b"Basic " + base64.b64encode(b"floor@bench.test:%s")
OK = b'{"result":"success","msg":"","id":1}'
DENIED = b'{"result":"error","msg":"Unauthorized","code":"UNAUTHORIZED"}'


@post("/floor")
async def floor(request: Request) -> Response:
    form = await request.form()
    good = hmac.compare_digest(request.headers.get("authorization", "").encode(), EXPECTED)
    if not good or "content" not in form:
        return Response(DENIED, status_code=401, media_type="application/json")
    return Response(OK, media_type="application/json")


app = Litestar([floor], plugins=[])
"""


class User(msgspec.Struct):
    id: int
    email: str
    key: str

    def basic(self) -> str:
        return "Basic " + base64.b64encode(f"{self.email}:{self.key}".encode()).decode()


class World(msgspec.Struct):
    users: list[User]
    stream_id: int  # "load": the first SEND_CHANNEL_SIZE people (sends)
    fanout_stream_id: int  # "fan-out": everyone (fan-out)


async def build_world(db: Path, users: int) -> World:
    rt = await Runtime.open_offline(Settings(db_path=db))
    try:
        people = [User(*person) for person in await add_people(rt, users)]
        async with rt.db.write() as tx:
            members = [p.id for p in people[:SEND_CHANNEL_SIZE]]
            load = await add_channel(tx, "load", people[0].id, members)
            everyone = await add_channel(tx, "fan-out", people[0].id, [p.id for p in people])
        return World(users=people, stream_id=load.id, fanout_stream_id=everyone.id)
    finally:
        await rt.close()


# --- a small keep-alive HTTP/1.1 client (the driver must cost less than the server) ---


class Http:
    def __init__(self, port: int, auth: str) -> None:
        self.port, self.auth = port, auth
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, form: str = "") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        assert self.reader is not None
        body = form.encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {self.auth}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        if not chunked:
            return status, await self.reader.readexactly(length)
        parts = []
        while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)
        await self.reader.readexactly(2)
        return status, b"".join(parts)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def form(**values: object) -> str:
    from urllib.parse import urlencode

    return urlencode({k: v if isinstance(v, str) else msgspec.json.encode(v).decode()
                      for k, v in values.items()})  # fmt: skip


# --- processes ---


def proc_stat(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS MiB) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return cpu, rss


def wait_ready(port: int, path: str, timeout: float = 60) -> None:
    import http.client

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", path)
            conn.getresponse().read()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server on port {port} did not answer")


def start_teamchat(db: Path, port: int, workdir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TEAMCHAT_API_RATE_LIMIT": "0", "TEAMCHAT_LOG_LEVEL": "warning"}
    server = subprocess.Popen(
        ["taskset", "-c", SERVER_CORE, sys.executable, "-m", "teamchat", "--db", str(db),
         "serve", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
    )  # fmt: skip
    wait_ready(port, "/api/v1/server_settings")
    return server


def start_floor(workdir: Path, port: int, key: str) -> subprocess.Popen[bytes]:
    (workdir / "floor_app.py").write_text(textwrap.dedent(FLOOR_APP % key))
    server = subprocess.Popen(
        ["taskset", "-c", SERVER_CORE, sys.executable, "-m", "uvicorn", "floor_app:app",
         "--port", str(port), "--log-level", "warning", "--no-access-log", "--ws", "none",
         "--lifespan", "on"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
    )  # fmt: skip
    wait_ready(port, "/floor")
    return server


# --- wrk ---

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


class WrkResult(msgspec.Struct):
    rate: float
    p50_ms: float
    p99_ms: float
    errors: int
    requests: int = 0


def wrk(workdir: Path, url: str, connections: int, secs: float, lua: str) -> WrkResult:
    script = workdir / "wrk.lua"
    script.write_text(lua)
    out = subprocess.run(
        ["taskset", "-c", DRIVER_CORE, "wrk", "-t1", f"-c{connections}", f"-d{secs:g}s",
         "--latency", "-s", str(script), url],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    lat = dict(re.findall(r"^\s+(50|99)(?:\.000)?%\s+([\d.]+\w+)", out, re.M))
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    errors += sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", out))

    def ms(text: str) -> float:
        number, unit = re.fullmatch(r"([\d.]+)(\w+)", text).groups()  # type: ignore[union-attr]
        return float(number) * UNITS[unit]

    return WrkResult(rate, ms(lat["50"]), ms(lat["99"]), errors, requests)


def lua_request(method: str, auth: str, body: str = "") -> str:
    return textwrap.dedent(f"""
        wrk.method = "{method}"
        wrk.body = "{body}"
        wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
        wrk.headers["Authorization"] = "{auth}"
    """)


def lua_senders(auths: list[str], body: str) -> str:
    """POST `body`, each request with the next of `auths` in turn."""
    names = ", ".join(f'"{auth}"' for auth in auths)
    return lua_request("POST", auths[0], body) + textwrap.dedent(f"""
        local auths = {{{names}}}
        local n = 0
        request = function()
            n = n + 1
            wrk.headers["Authorization"] = auths[n % #auths + 1]
            return wrk.format()
        end
    """)


# --- fan-out and idle queues ---


async def fan_out(
    port: int,
    world: World,
    listeners: int,
    rate: float,
    secs: float,
    phase: Callable[[], None] | None = None,
) -> tuple[float, float, int, int]:
    """(p50 ms, p99 ms, deliveries, expected deliveries) of send -> receive. `phase` is
    called once every listener has registered and again once every message was received
    (or the wait for them ended): to measure the fan-out alone."""
    sender = Http(port, world.users[0].basic())
    latencies: list[float] = []
    sent_at: dict[int, float] = {}
    received = 0
    stop = asyncio.Event()

    async def listen(user: User, registered: asyncio.Future[None]) -> None:
        nonlocal received
        http = Http(port, user.basic())
        _, raw = await http.request(
            "POST", "/api/v1/register", form(event_types=["message"], apply_markdown="false")
        )
        state = msgspec.json.decode(raw)
        queue_id, last = state["queue_id"], state["last_event_id"]
        registered.set_result(None)
        while not stop.is_set():
            _, raw = await http.request(
                "GET", f"/api/v1/events?queue_id={queue_id}&last_event_id={last}"
            )
            now = time.perf_counter()
            for event in msgspec.json.decode(raw).get("events", []):
                last = max(last, event["id"])
                content = event.get("message", {}).get("content", "")
                if event["type"] == "message" and content.isdigit():  # not a late earlier send
                    tag = int(content)
                    latencies.append((now - sent_at[tag]) * 1000)
                    received += 1
        # Gone, as a client that quits says: queues left behind would take every later
        # run's events until their timeout, and make its figures those of more listeners.
        await http.request("DELETE", f"/api/v1/events?queue_id={queue_id}")
        http.close()

    futures = [asyncio.get_running_loop().create_future() for _ in range(listeners)]
    tasks = [
        asyncio.create_task(listen(u, f)) for u, f in zip(world.users[1:], futures, strict=False)
    ]
    await asyncio.gather(*futures)
    if phase is not None:
        phase()
    count = int(rate * secs)
    started = time.perf_counter()
    for tag in range(count):
        await asyncio.sleep(max(0.0, started + tag / rate - time.perf_counter()))
        sent_at[tag] = time.perf_counter()
        status, _ = await sender.request(
            "POST", "/api/v1/messages",
            form(type="stream", to=str(world.fanout_stream_id), topic="fan-out", content=str(tag)),
        )  # fmt: skip
        assert status == 200
    deadline = time.perf_counter() + 30
    while received < count * listeners and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    if phase is not None:
        phase()
    stop.set()
    # Wake the listeners' last long-polls with one more message, then stop them.
    sent_at[count] = time.perf_counter()
    await sender.request(
        "POST", "/api/v1/messages",
        form(type="stream", to=str(world.fanout_stream_id), topic="fan-out", content=str(count)),
    )  # fmt: skip
    await asyncio.wait(tasks, timeout=10)
    for task in tasks:
        task.cancel()
    sender.close()
    got = sorted(latencies)[: count * listeners]
    p99 = statistics.quantiles(got, n=100)[98] if len(got) > 1 else float("nan")
    return statistics.median(got), p99, min(received, count * listeners), count * listeners


async def idle_queues(port: int, world: World, queues: int, pid: int) -> tuple[float, float]:
    """(RSS MiB after registering, server CPU ms per register)."""
    cpu_before, _ = proc_stat(pid)
    clients = [Http(port, world.users[i % len(world.users)].basic()) for i in range(16)]

    async def register(http: Http, n: int) -> None:
        for _ in range(n):
            status, _ = await http.request("POST", "/api/v1/register", form(event_types=[]))
            assert status == 200

    await asyncio.gather(*(register(c, queues // len(clients)) for c in clients))
    cpu_after, rss = proc_stat(pid)
    for c in clients:
        c.close()
    return rss, (cpu_after - cpu_before) * 1000 / queues


# --- the run ---


def median_of(runs: int, measure: Callable[[], WrkResult]) -> WrkResult:
    results = [measure() for _ in range(runs)]
    return WrkResult(
        statistics.median(r.rate for r in results),
        statistics.median(r.p50_ms for r in results),
        statistics.median(r.p99_ms for r in results),
        sum(r.errors for r in results),
        sum(r.requests for r in results),
    )


def with_cpu(pid: int, measure: Callable[[], WrkResult]) -> tuple[WrkResult, float]:
    """`measure()` and the server's CPU microseconds per request it made."""
    cpu0, _ = proc_stat(pid)
    result = measure()
    return result, (proc_stat(pid)[0] - cpu0) * 1e6 / max(result.requests, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--secs", type=float, default=10)
    parser.add_argument("--listeners", default="10,100,1000")
    parser.add_argument("--queues", type=int, default=10000)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--starts", type=int, default=7, help="cold starts to time (0: none)")
    parser.add_argument(
        "--bigorg", default="10000,1000,100",
        help="people,channels,groups of the big organization ('' to skip it)",
    )  # fmt: skip
    parser.add_argument("--bigorg-keep", type=Path, default=None, help="keep/reuse its database")
    parser.add_argument("--no-browser", action="store_true", help="skip the web client's load")
    parser.add_argument("--db", default=None, help="postgresql://...: see bench_processes.py")
    parser.add_argument("--processes", type=int, default=1, help="see bench_processes.py")
    args = parser.parse_args()
    if args.db is not None or args.processes > 1:
        # Several processes / PostgreSQL: SQLite (1 process) and PostgreSQL (1 and N) rows.
        from scripts import bench_processes

        counts = sorted({1, args.processes})
        configs = ",".join(["sqlite:1", *(f"postgresql:{n}" for n in counts)])
        more = ["--configs", configs, "--secs", str(args.secs), "--rate", str(args.rate)]
        more += ["--db", args.db] if args.db else []
        bench_processes.run(bench_processes.parser().parse_args(more))
        return
    if shutil.which("wrk") is None:
        sys.exit("wrk is needed: apt-get install wrk")
    os.sched_setaffinity(0, {int(DRIVER_CORE)})
    sizes = [int(n) for n in args.listeners.split(",") if n]
    load = os.getloadavg()[0]
    if load > 0.5:
        print(f"note: the machine is busy (load average {load:.1f}); figures will be noisy")
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        db = workdir / "teamchat.db"
        world = asyncio.run(build_world(db, max([*sizes, 32]) + 1))
        floor_key = random_api_key()

        def floor() -> tuple[float, float]:
            """(req/s, server CPU us per request)"""
            port = free_port()
            server = start_floor(workdir, port, floor_key)
            try:
                token = base64.b64encode(f"floor@bench.test:{floor_key}".encode()).decode()
                lua = lua_request(
                    "POST", f"Basic {token}", "type=stream&to=1&topic=load&content=hello"
                )
                result, cpu_us = with_cpu(server.pid, lambda: median_of(
                    args.runs, lambda: wrk(workdir, f"http://127.0.0.1:{port}/floor", 32,
                                           args.secs, lua)
                ))  # fmt: skip
                return result.rate, cpu_us
            finally:
                server.terminate()
                server.wait(10)

        floor_start, floor_cpu = floor()
        rows.append((
            "floor (POST form + Basic auth, 32 conns)", f"{floor_start:,.0f} req/s",
            f"server CPU {floor_cpu:.0f} us/request",
        ))  # fmt: skip
        port = free_port()
        server = start_teamchat(db, port, workdir)
        try:
            time.sleep(2)
            rows.append(("idle RSS after start", f"{proc_stat(server.pid)[1]:.0f} MiB", ""))
            base = f"http://127.0.0.1:{port}/api/v1"
            me = world.users[0]
            users_me, me_cpu = with_cpu(server.pid, lambda: median_of(
                args.runs,
                lambda: wrk(workdir, f"{base}/users/me", 32, args.secs,
                            lua_request("GET", me.basic())),
            ))  # fmt: skip
            rows.append((
                "GET /users/me (32 conns)", f"{users_me.rate:,.0f} req/s",
                f"{users_me.rate / floor_start:.2f} x floor; server CPU {me_cpu:.0f} us/request"
                f" = {floor_cpu / me_cpu:.2f} CPU x floor",
            ))  # fmt: skip
            body = f"type=stream&to={world.stream_id}&topic=load&content=hello"
            send_lua = lua_senders([u.basic() for u in world.users[:SENDERS]], body)
            for senders in (1, 8, 32):
                cpu0, _ = proc_stat(server.pid)
                t0 = time.monotonic()
                sent, send_cpu = with_cpu(server.pid, lambda n=senders: median_of(
                    args.runs,
                    lambda: wrk(workdir, f"{base}/messages", n, args.secs, send_lua),
                ))  # fmt: skip
                cpu = (proc_stat(server.pid)[0] - cpu0) / (time.monotonic() - t0)
                rows.append((
                    f"send to {SEND_CHANNEL_SIZE} members, {senders} connection"
                    + ("s" if senders > 1 else ""),
                    f"{sent.rate:,.0f} msg/s (p50 {sent.p50_ms:.1f} ms, p99 {sent.p99_ms:.1f} ms)",
                    f"{sent.rate / floor_start:.2f} x floor; server CPU {cpu:.2f} of a core,"
                    f" {send_cpu:.0f} us/message = {floor_cpu / send_cpu:.2f} CPU x floor"
                    + (f"; {sent.errors} errors" if sent.errors else ""),
                ))  # fmt: skip
            for size in sizes:
                peak = 0.0
                results = []
                for _ in range(args.runs):
                    results.append(asyncio.run(fan_out(port, world, size, args.rate, args.secs)))
                    peak = max(peak, proc_stat(server.pid)[1])
                p50 = statistics.median(r[0] for r in results)
                p99 = statistics.median(r[1] for r in results)
                got, expected = sum(r[2] for r in results), sum(r[3] for r in results)
                rows.append((
                    f"fan-out, {size} listeners, {args.rate:g} msg/s",
                    f"p50 {p50:.1f} ms, p99 {p99:.1f} ms",
                    f"{got:,}/{expected:,} delivered; RSS after {peak:.0f} MiB",
                ))  # fmt: skip
            # Idle queues on a fresh server: the fan-out's listeners left theirs behind.
            server.terminate()
            server.wait(15)
            port = free_port()
            server = start_teamchat(db, port, workdir)
            time.sleep(2)
            rss, cpu_ms = asyncio.run(idle_queues(port, world, args.queues, server.pid))
            rows.append((
                f"{args.queues:,} idle queues", f"RSS {rss:.0f} MiB",
                f"register {cpu_ms:.2f} ms server CPU each",
            ))  # fmt: skip
        finally:
            server.terminate()
            server.wait(15)
        if args.starts:
            # Cold start: a fresh process on the (already migrated) database to its first 200.
            command = ["--db", str(db), "serve"]
            starts = [start_to_first_answer(command) for _ in range(args.starts)]
            rows.append((
                "cold start to the first answered request",
                f"{statistics.median(start[0] for start in starts) * 1000:.0f} ms",
                f"server CPU {statistics.median(start[1] for start in starts) * 1000:.0f} ms"
                f" (median of {args.starts})",
            ))  # fmt: skip
        if args.bigorg:
            people, channels, groups = (int(n) for n in args.bigorg.split(","))
            big = bench_bigorg.parser().parse_args([
                "--people", str(people), "--channels", str(channels), "--groups", str(groups),
                "--runs", str(max(args.runs * 3, 5)), "--server-core", SERVER_CORE,
                *(["--keep", str(args.bigorg_keep)] if args.bigorg_keep else []),
                *(["--no-browser"] if args.no_browser else []),
            ])  # fmt: skip
            for figure, value, notes in bench_bigorg.run(big):
                cpu_ms = re.search(r"([0-9.]+) ms (?:server )?CPU", f"{value} {notes}")
                ratio = (
                    f"; = {float(cpu_ms.group(1)) * 1000 / floor_cpu:.0f} floor requests of CPU"
                    if cpu_ms else ""
                )  # fmt: skip
                rows.append((figure, value, notes + ratio))
        floor_end, floor_end_cpu = floor()
        rows.append((
            "floor again at the end", f"{floor_end:,.0f} req/s",
            f"server CPU {floor_end_cpu:.0f} us/request",
        ))  # fmt: skip
    print()
    print("| figure | teamchat | notes |\n|---|---|---|")
    for row in rows:
        print(f"| {row[0]} | {row[1]} | {row[2]} |")


if __name__ == "__main__":
    main()

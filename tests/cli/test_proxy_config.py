"""`teamchat proxy-config nginx` and the `serve --process/--peers` options it goes with.

The generated site is run by nginx in tests/proxy/test_proxy_routing.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server import cli


def test_a_count_gives_numbered_processes_on_consecutive_ports(tmp_path: Path) -> None:
    site = cli(tmp_path / "x.db", "proxy-config", "nginx", "--processes", "3").stdout
    for number, port in ((1, 9001), (2, 9002), (3, 9003)):
        assert f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=10s;" in site
        assert f"upstream teamchat_{number} {{\n    server 127.0.0.1:{port};" in site
        assert f'    "~^{number}-" teamchat_{number};' in site
    assert "map $arg_queue_id $teamchat_events {" in site
    assert site.count("proxy_pass http://$teamchat_events;") == 2  # /api/v1 and /json
    assert "location = /api/v1/events {" in site and "location = /json/events {" in site
    assert "proxy_buffering off;" in site and "client_max_body_size 30m;" in site
    peers = "1=http://127.0.0.1:9001,2=http://127.0.0.1:9002,3=http://127.0.0.1:9003"
    assert f"--port 9002 --process 2 --peers {peers}" in site
    assert not (tmp_path / "x.db").exists()  # no database is needed or made


def test_a_list_keeps_its_order_and_the_read_timeout_follows_the_heartbeat(
    tmp_path: Path,
) -> None:
    site = cli(
        tmp_path / "x.db",
        "proxy-config", "nginx", "--processes", "10.0.0.7:8000, [::1]:8001",
        "--listen", "443", "--server-name", "chat.example.com",
        env={"TEAMCHAT_HEARTBEAT_SECS": "100", "TEAMCHAT_HEARTBEAT_JITTER_SECS": "20"},
    ).stdout  # fmt: skip
    assert "upstream teamchat_1 {\n    server 10.0.0.7:8000;" in site
    assert "upstream teamchat_2 {\n    server [::1]:8001;" in site
    assert "listen 443;" in site and "server_name chat.example.com;" in site
    assert "proxy_read_timeout 180s;" in site  # heartbeat 100 + jitter 20 + a minute


def test_output_writes_the_file(tmp_path: Path) -> None:
    target = tmp_path / "teamchat.conf"
    result = cli(tmp_path / "x.db", "proxy-config", "nginx", "--processes", "2",
                 "--base-port", "7000", "--output", str(target))  # fmt: skip
    assert "Wrote" in result.stdout and "--peers 1=http://127.0.0.1:7000" in result.stderr
    assert "server 127.0.0.1:7001 max_fails=1" in target.read_text()


def test_haproxy_sections_route_queue_ids_and_stand_by_with_the_others(tmp_path: Path) -> None:
    sections = cli(tmp_path / "x.db", "proxy-config", "haproxy", "--processes", "2",
                   "--bind", "127.0.0.1:8080").stdout  # fmt: skip
    assert "    bind 127.0.0.1:8080" in sections
    assert "use_backend teamchat_2 if queue_events { urlp(queue_id) -m beg 2- }" in sections
    assert "backend teamchat_1\n    server p1 127.0.0.1:9001 check" in sections
    assert "    server p2 127.0.0.1:9002 check inter 1s fall 1 rise 2 backup" in sections
    assert "timeout server 115s" in sections and "set-header X-Forwarded-For %[src]" in sections
    bad = cli(tmp_path / "x.db", "proxy-config", "haproxy", "--processes", "2",
              "--bind", "80 x", check=False)  # fmt: skip
    assert bad.returncode == 1 and bad.stderr.startswith("error: --bind: '80 x' is not")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--processes", "0"], "--processes: 0 processes from port 9001 do not fit"),
        (["--processes", "a:b"], "--processes: 'a:b' is not host:port"),
        (["--processes", "h:1,h:1"], "--processes: a process is given twice"),
        (["--processes", "x y:1"], "--processes: 'x y' is not a host name or address"),
        (["--processes", "2", "--listen", "80; evil"], "--listen: '80; evil' is not a port"),
        (["--processes", "2", "--server-name", "a;b"], "--server-name: 'a;b' is not a host"),
    ],
)
def test_bad_values_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    result = cli(tmp_path / "x.db", "proxy-config", "nginx", *args, check=False)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--process", "0"], "a process number is 1 to 999, not 0"),
        (["--peers", "1=http://127.0.0.1:1"], "--peers needs --process"),
        (["--process", "3", "--peers", "1=http://127.0.0.1:1"], "does not name this process"),
        (["--process", "1", "--peers", "1=ftp://h:1"], "is not an http:// or https:// URL"),
        (["--process", "1", "--peers", "one=http://h:1"], "is not N=URL"),
        (["--process", "1", "--peers", "1=http://h:1,1=http://h:2"], "process 1 is given twice"),
    ],
)
def test_serve_refuses_bad_process_options_before_starting(
    tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "x.db"
    result = cli(db, "serve", "--port", "1", *args, check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.startswith("error: --process/--peers: ") and message in result.stderr
    assert not db.exists()

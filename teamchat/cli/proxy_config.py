"""`teamchat proxy-config`: the reverse proxy configuration for several server processes,
and the `serve` options that go with it (--process, --peers)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from teamchat.cli.common import console, err_console, fail
from teamchat.config import Settings, parse_peers
from teamchat.lib.proxy_config import (
    ProcessAddress,
    haproxy_config,
    nginx_config,
    parse_processes,
    peers_value,
)
from teamchat.lib.queue_ids import check_process

proxy_config = typer.Typer(
    help="Print the reverse proxy configuration for several server processes.",
    no_args_is_help=True,
)
# A long poll is answered by its heartbeat at the latest; the proxy waits this much longer.
READ_TIMEOUT_MARGIN_SECS = 60
# What nginx's `listen` and `server_name` take here (nothing that could end the directive).
_LISTEN = re.compile(r"(?:\[[0-9A-Fa-f:]+\]:|[0-9A-Za-z.\-]+:)?[0-9]{1,5}")
_BIND = re.compile(r"(?:\[[0-9A-Fa-f:]+\]|[0-9A-Za-z.\-]*):[0-9]{1,5}")
_SERVER_NAME = re.compile(r"[0-9A-Za-z.\-_*]+")
# Room for a multipart request's own bytes around the largest allowed file.
BODY_MARGIN_MIB = 5


def several_processes(process: int | None, peers: str | None) -> dict[str, object]:
    """The Settings fields of `serve --process N --peers ...` (none when not given);
    ValueError for a bad value."""
    values: dict[str, object] = {}
    if process is not None:
        values["process"] = check_process(process)
    if peers:
        parsed = parse_peers(peers)
        if process is None:
            raise ValueError("--peers needs --process (this process's number among them)")
        if process not in dict(parsed):
            raise ValueError(f"--peers does not name this process ({process})")
        values["peers"] = parsed
    return values


ProcessesOption = Annotated[
    str,
    typer.Option(
        help="The processes: a count (on --host, ports from --base-port) or a list"
        " host:port,host:port (process 1, 2... in that order)",
    ),
]
HostOption = Annotated[str, typer.Option(help="Address of the processes given by a count")]
BasePortOption = Annotated[int, typer.Option(help="Port of process 1 given by a count")]
OutputOption = Annotated[Path | None, typer.Option(help="Write the configuration to this file")]


@proxy_config.command("nginx")
def nginx(
    processes: ProcessesOption,
    host: HostOption = "127.0.0.1",
    base_port: BasePortOption = 9001,
    listen: Annotated[str, typer.Option(help="nginx's `listen` (a port, or address:port)")] = (
        "80"
    ),
    server_name: Annotated[str, typer.Option(help="nginx's `server_name`")] = "_",
    output: OutputOption = None,
) -> None:
    """Print an nginx site for several `teamchat serve` processes: requests balanced across
    them, each event queue's requests routed to the process that holds the queue."""
    parsed = _parse(processes, host, base_port)
    if not _LISTEN.fullmatch(listen):
        raise fail(f"--listen: {listen!r} is not a port or address:port")
    if not _SERVER_NAME.fullmatch(server_name):
        raise fail(f"--server-name: {server_name!r} is not a host name (or _)")
    max_body_mib, read_timeout_secs = _limits()
    text = nginx_config(
        parsed,
        listen=listen,
        server_name=server_name,
        max_body_mib=max_body_mib,
        events_read_timeout_secs=read_timeout_secs,
    )
    _emit(text, output, parsed)


@proxy_config.command("haproxy")
def haproxy(
    processes: ProcessesOption,
    host: HostOption = "127.0.0.1",
    base_port: BasePortOption = 9001,
    bind: Annotated[str, typer.Option(help="HAProxy's `bind` ([address]:port)")] = ":80",
    output: OutputOption = None,
) -> None:
    """Print HAProxy sections for several `teamchat serve` processes (load them after your
    global section): the same routing as the nginx site."""
    parsed = _parse(processes, host, base_port)
    if not _BIND.fullmatch(bind):
        raise fail(f"--bind: {bind!r} is not [address]:port")
    max_body_mib, read_timeout_secs = _limits()
    text = haproxy_config(
        parsed, bind=bind, max_body_mib=max_body_mib, events_read_timeout_secs=read_timeout_secs
    )
    _emit(text, output, parsed)


def _parse(processes: str, host: str, base_port: int) -> list[ProcessAddress]:
    try:
        return parse_processes(processes, host=host, base_port=base_port)
    except ValueError as error:
        raise fail(f"--processes: {error}") from None


def _limits() -> tuple[int, int]:
    """(largest request body in MiB, long-poll read timeout in seconds) from the settings."""
    settings = Settings.from_env()
    heartbeat = settings.heartbeat_secs + settings.heartbeat_jitter_secs
    return (
        settings.max_file_upload_size_mib + BODY_MARGIN_MIB,
        int(heartbeat + READ_TIMEOUT_MARGIN_SECS),
    )


def _emit(text: str, output: Path | None, processes: list[ProcessAddress]) -> None:
    if output is None:
        # Plain text on stdout (no markup, no wrapping): it is meant for a file.
        print(text, end="")
        return
    try:
        output.write_text(text)
    except OSError as error:
        raise fail(f"cannot write {output}: {error.strerror}") from None
    console.print(f"[green]Wrote[/] {output} for {len(processes)} processes", soft_wrap=True)
    err_console.print(f"Start them with --peers {peers_value(processes)}", soft_wrap=True)

"""The `teamchat` command's commands, each imported when it is the one that runs.

`teamchat serve` used to import every command module (the admin commands and the actions
they use, backup, export, import, sandbox) and build every command's options before it
started serving. Here each command other than `serve` is a loader, run when the command is
looked up: running it, its `--help`, or the command list of `teamchat --help` (which
loads them all). The command list keeps its order; a mistyped command still gets its
suggestion, as the names are known without loading.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import typer
from typer.core import TyperGroup

# Typer lists commands before command groups: this is the order `teamchat --help` showed.
ORDER = ("backup", "restore", "export", "import", "migrate", "sandbox", "serve", "admin",
         "proxy-config")  # fmt: skip


def _command(module: str, function: str, name: str) -> Callable[[], Any]:
    def load() -> Any:
        single = typer.Typer(add_completion=False)
        single.command(name=name)(getattr(importlib.import_module(module), function))
        return typer.main.get_command(single)

    return load


def _group(module: str, attribute: str, name: str, *adding: str) -> Callable[[], Any]:
    def load() -> Any:
        for other in adding:  # modules that add their commands to the group when imported
            importlib.import_module(other)
        group = typer.main.get_group(getattr(importlib.import_module(module), attribute))
        group.name = name
        return group

    return load


LOADERS: dict[str, Callable[[], Any]] = {
    "backup": _command("teamchat.cli.backup", "backup", "backup"),
    "restore": _command("teamchat.cli.backup", "restore", "restore"),
    "export": _command("teamchat.cli.export", "export", "export"),
    "import": _command("teamchat.cli.zulip_import", "import_command", "import"),
    "migrate": _command("teamchat.cli.migrate", "migrate_command", "migrate"),
    "sandbox": _command("teamchat.cli.sandbox", "sandbox", "sandbox"),
    "admin": _group(
        "teamchat.cli.admin",
        "admin",
        "admin",
        *(f"teamchat.cli.{name}" for name in ("admin_channels", "admin_org", "admin_realm")),
        "teamchat.cli.first_start",
    ),
    "proxy-config": _group("teamchat.cli.proxy_config", "proxy_config", "proxy-config"),
}


class LazyCommands(MutableMapping[str, Any]):
    """A group's commands by name: the registered ones, and LOADERS' loaded on first lookup."""

    def __init__(self, commands: MutableMapping[str, Any]) -> None:
        self.loaded = dict(commands)

    def names(self) -> list[str]:
        known = [name for name in ORDER if name in self.loaded or name in LOADERS]
        return known + [name for name in self.loaded if name not in known]

    def __getitem__(self, name: str) -> Any:
        if name not in self.loaded and name in LOADERS:
            self.loaded[name] = LOADERS[name]()
        return self.loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self.loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __contains__(self, name: object) -> bool:
        return name in self.loaded or name in LOADERS


class LazyGroup(TyperGroup):
    """The top-level command group, with LazyCommands."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.commands)

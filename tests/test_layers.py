"""STYLE.md's layer table, enforced by walking every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "teamchat"

# layer -> teamchat layers it must not import
FORBIDDEN = {
    "http": {"store.db", "events.broker", "render", "cli"},
    "actions": {"http", "cli", "app"},
    "store": {"actions", "events", "http", "render", "cli", "runtime"},
    "events": {"store", "actions", "http", "render", "cli", "runtime"},
    "render": {"store", "actions", "http", "events", "cli", "runtime"},
    "lib": {"store", "actions", "http", "events", "render", "cli", "runtime", "app", "config"},
}
THIRD_PARTY_FORBIDDEN = {
    "actions": {"litestar", "typer", "rich"},
    "store": {"litestar", "typer", "rich"},
    "events": {"litestar", "typer", "rich", "aiosqlite", "sqlite3"},
    "render": {"litestar", "typer", "rich", "aiosqlite", "sqlite3"},
    "lib": {"litestar", "typer", "rich", "aiosqlite"},
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_layers_import_only_what_style_allows() -> None:
    problems = []
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        layer = parts[0] if len(parts) > 1 else None
        if layer not in FORBIDDEN:
            continue
        for name in imports_of(path):
            top = name.split(".")[0]
            if top == "teamchat":
                inner = name.removeprefix("teamchat.")
                if any(inner == bad or inner.startswith(bad + ".") for bad in FORBIDDEN[layer]):
                    problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
            elif top in THIRD_PARTY_FORBIDDEN.get(layer, set()):
                problems.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not problems, "\n".join(sorted(problems))


def test_http_handlers_never_publish_or_write() -> None:
    for path in (PACKAGE / "http").glob("*.py"):
        text = path.read_text()
        assert "broker.publish" not in text and ".write()" not in text, path

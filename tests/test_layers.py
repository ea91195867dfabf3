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


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_cycles(paths: list[Path]) -> list[list[str]]:
    """The knots (strongly connected groups of more than one module) among `paths`, counting
    imports inside functions too (STYLE.md: untie import circles)."""
    modules = {_module_name(p): p for p in paths}
    graph = {
        name: {
            target
            for imported in imports_of(path)
            for target in (imported, imported.rpartition(".")[0])
            # A module reaching its siblings through its own package is no knot.
            if target in modules and target != name and not name.startswith(target + ".")
        }
        for name, path in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    knots: list[list[str]] = []

    def visit(name: str) -> None:  # Tarjan's algorithm
        index[name] = low[name] = len(index)
        stack.append(name)
        for target in graph[name]:
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            knot = []
            while True:
                member = stack.pop()
                knot.append(member)
                if member == name:
                    break
            if len(knot) > 1:
                knots.append(sorted(knot))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return knots


def test_actions_have_no_import_cycles() -> None:
    knots = _import_cycles(sorted((PACKAGE / "actions").rglob("*.py")))
    assert not knots, "\n".join(" <-> ".join(knot) for knot in knots)

"""axe-core (the accessibility rules engine, from the npm registry) for the web client's
accessibility test, installed on first use under `.cache/clients/` like the other clients.

Where node or npm is missing and the tests run as root with apt-get (CI on Debian), nodejs and
npm are installed first; where neither is possible the test is skipped with why.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.clients import CACHE, _locked, _run
from tests.support.debian import apt_install

AXE_VERSION = "4.10.3"


def _ensure_npm() -> None:
    apt_install(
        ["nodejs", "npm"], lambda: shutil.which("npm") is not None, "the accessibility check"
    )


def axe_script() -> str:
    """The text of axe.min.js, installing axe-core with npm if needed."""
    folder = CACHE / f"axe-core-{AXE_VERSION}"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    with _locked("axe-core"):
        if not script.exists():
            _ensure_npm()
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "package.json").write_text('{"name": "teamchat-axe", "private": true}')
            try:
                _run(
                    ["npm", "install", "--no-audit", "--no-fund", f"axe-core@{AXE_VERSION}"],
                    cwd=folder,
                )
            except RuntimeError as error:
                pytest.skip(f"could not install axe-core from the npm registry: {error}")
    return Path(script).read_text()


def axe_violations(page: Page, script: str) -> list[dict[str, Any]]:
    """The serious and critical problems axe-core finds in the page as it is now (the page's
    context needs bypass_csp: axe is injected as an inline script)."""
    page.add_script_tag(content=script)
    result = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))"
    )
    print(page.url, [(v["id"], v["impact"]) for v in result])
    return [v for v in result if v["impact"] in ("serious", "critical")]

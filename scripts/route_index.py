"""Write teamchat/http/route_index.py: which area modules serve each group of paths.

Usage: python scripts/route_index.py  (after adding, moving or removing a route;
tests/test_routes.py fails while the index is stale)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from teamchat.http import route_groups  # noqa: E402

HEADER = '''"""Which area modules serve each group of paths: written by
`python scripts/route_index.py` from the handlers themselves (tests/test_routes.py checks
it), read by http/areas.py."""

from __future__ import annotations

# (route keys, area modules): see teamchat.http.route_key and route_groups.
'''


def main() -> None:
    target = ROOT / "teamchat" / "http" / "route_index.py"
    kind = "tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]"
    body = f"ROUTE_GROUPS: {kind} = {tuple(route_groups())!r}\n"
    target.write_text(HEADER + body)
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(target)], check=True)
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

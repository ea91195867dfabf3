"""Drive a terminal program under tmux (on a private tmux server): send keys, read the screen."""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def _clean_environment() -> dict[str, str]:
    """Our environment without pytest's variables: the tmux server passes its environment to
    the programs it runs, and zulip-terminal runs its threads inline when it sees
    PYTEST_CURRENT_TEST (its own test hook), which hangs it at the loading spinner."""
    return {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}


class Tmux:
    """One detached session on its own tmux socket, so nothing else on the machine is touched."""

    def __init__(self, socket_name: str, width: int = 160, height: int = 40) -> None:
        self.socket_name = socket_name
        self.session = "main"
        self.width, self.height = width, height

    def _tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket_name, *args],
            capture_output=True,
            text=True,
            timeout=30,
            env=_clean_environment(),
        )
        if result.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {result.stderr}")
        return result.stdout

    def start(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        """Run `argv` in `cwd` with `env` added; "EXITED" is printed when it ends."""
        assignments = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
        command = (
            f"cd {shlex.quote(str(cwd))} && env {assignments} {shlex.join(argv)};"
            " echo EXITED; sleep 600"
        )
        self._tmux(
            "new-session", "-d", "-s", self.session,
            "-x", str(self.width), "-y", str(self.height), command,
        )  # fmt: skip

    def keys(self, *keys: str) -> None:
        """Key names as tmux understands them (Tab, Escape, C-d, single characters)."""
        for key in keys:
            self._tmux("send-keys", "-t", self.session, key)

    def type(self, text: str) -> None:
        """Literal text."""
        self._tmux("send-keys", "-t", self.session, "-l", text)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.session)

    def wait_until(
        self, check: Callable[[str], bool], what: str, deadline: float = 20.0,
        on_failure: Callable[[], str] = lambda: "",
    ) -> str:  # fmt: skip
        """Poll the screen until `check(screen)`; fail with the screen when time runs out."""
        end = time.monotonic() + deadline
        screen = ""
        while time.monotonic() < end:
            screen = self.screen()
            if check(screen):
                return screen
            if "EXITED" in screen:
                break
            time.sleep(0.2)
        raise AssertionError(f"{what}: not on screen\n{screen}\n{on_failure()}")

    def kill(self) -> None:
        subprocess.run(
            ["tmux", "-L", self.socket_name, "kill-server"], capture_output=True, timeout=30
        )

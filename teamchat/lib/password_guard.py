"""PasswordGuard: the one budget of password verifications, per account and per client.

An attempt is reserved before the password is verified and settled after: while reserved it
counts against both budgets, so concurrent guesses cannot all pass a check made before any of
them failed. An account has at most one verification in flight. Only failures stay counted.
Pure bookkeeping in memory with an injected clock; the caller runs the verification.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

# Past this many keys, idle keys are dropped (sprayed usernames cannot grow memory unbounded).
SWEEP_AT_KEYS = 10_000
# What a refused attempt is told to wait while another one for the account is being checked.
IN_FLIGHT_RETRY_SECS = 1.0


@dataclass
class _Budget:
    failures: deque[float] = field(default_factory=deque)
    in_flight: int = 0


class _Window:
    """Failures in a sliding window, plus reservations, per key; max 0 means unlimited."""

    def __init__(self, max_attempts: int, window_secs: float, clock: Callable[[], float]) -> None:
        self.max_attempts = max_attempts
        self.window_secs = window_secs
        self.clock = clock
        self.keys: dict[str, _Budget] = {}

    def budget(self, key: str) -> _Budget:
        budget = self.keys.setdefault(key, _Budget())
        horizon = self.clock() - self.window_secs
        while budget.failures and budget.failures[0] <= horizon:
            budget.failures.popleft()
        return budget

    def retry_after(self, key: str) -> float | None:
        """Seconds until a new attempt fits in the budget, or None if it fits now."""
        if self.max_attempts <= 0:
            return None
        budget = self.budget(key)
        if len(budget.failures) + budget.in_flight < self.max_attempts:
            return None
        if not budget.failures:
            return IN_FLIGHT_RETRY_SECS
        return max(budget.failures[0] + self.window_secs - self.clock(), IN_FLIGHT_RETRY_SECS)

    def sweep(self) -> None:
        if len(self.keys) < SWEEP_AT_KEYS:
            return
        for key in list(self.keys):
            budget = self.budget(key)
            if not budget.failures and not budget.in_flight:
                del self.keys[key]


class PasswordGuard:
    """Failed password verifications per account key and per client key (each its own window)."""

    def __init__(
        self,
        account_limit: tuple[int, float],
        client_limit: tuple[int, float],
        clock: Callable[[], float],
    ) -> None:
        self._accounts = _Window(*account_limit, clock)
        self._clients = _Window(*client_limit, clock)
        self._clock = clock
        # Account key -> the stored "failures cleared" generation last applied (see `sync`).
        self._generations: dict[str, int] = {}

    def sync(self, account_key: str, generation: int) -> None:
        """Forget the account's failures if they were cleared elsewhere since last seen
        (an administrator's unlock, a new password; possibly in another process)."""
        if self._generations.get(account_key, 0) != generation:
            self._generations[account_key] = generation
            self._accounts.budget(account_key).failures.clear()

    def reserve(self, account_key: str, client_key: str) -> float | None:
        """Reserve one verification, or return the seconds to wait (nothing reserved).
        Refused while another verification for the account is in flight."""
        self._accounts.sweep()
        self._clients.sweep()
        account = self._accounts.budget(account_key)
        if account.in_flight and self._accounts.max_attempts > 0:
            return max(self._accounts.retry_after(account_key) or 0, IN_FLIGHT_RETRY_SECS)
        waits = [self._accounts.retry_after(account_key), self._clients.retry_after(client_key)]
        refused = [wait for wait in waits if wait is not None]
        if refused:
            return max(refused)
        account.in_flight += 1
        self._clients.budget(client_key).in_flight += 1
        return None

    def settle(self, account_key: str, client_key: str, *, failed: bool) -> None:
        """End a reservation; a failure (or an attempt whose outcome is unknown) counts."""
        now = self._clock()
        for window, key in ((self._accounts, account_key), (self._clients, client_key)):
            budget = window.budget(key)
            if failed and window.max_attempts > 0:
                budget.failures.append(now)
            budget.in_flight = max(budget.in_flight - 1, 0)

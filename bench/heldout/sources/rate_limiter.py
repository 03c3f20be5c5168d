"""A sliding-window rate limiter: at most `limit` requests per key in any `window` seconds.

Times are plain numbers of seconds. Each method takes an optional `now`; when it is left
out, the limiter uses time.monotonic().
"""

import time
from collections import deque


class RateLimiter:
    """Allows each key at most `limit` requests within any `window` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if window <= 0:
            raise ValueError("window must be greater than 0")
        self.limit = limit
        self.window = window
        self._hits: dict[str, deque] = {}

    def _recent(self, key: str, now: float) -> deque:
        hits = self._hits.setdefault(key, deque())
        while hits and hits[0] <= now - self.window:
            hits.popleft()
        return hits

    def allow(self, key: str, now: float | None = None, cost: int = 1) -> bool:
        """Record a request of `cost` units for `key` and say whether it is allowed.

        A refused request is not recorded. Raises ValueError when `cost` is below 1 or
        above the limit, since such a request could never be allowed.
        """
        if cost < 1 or cost > self.limit:
            raise ValueError(f"cost must be between 1 and {self.limit}")
        now = time.monotonic() if now is None else now
        hits = self._recent(key, now)
        if len(hits) + cost > self.limit:
            return False
        hits.extend([now] * cost)
        return True

    def remaining(self, key: str, now: float | None = None) -> int:
        """How many more requests `key` may make right now."""
        now = time.monotonic() if now is None else now
        return self.limit - len(self._recent(key, now))

    def retry_after(self, key: str, now: float | None = None) -> float:
        """Seconds until `key` may make one more request; 0.0 when it may already."""
        now = time.monotonic() if now is None else now
        hits = self._recent(key, now)
        if len(hits) < self.limit:
            return 0.0
        return float(hits[0] + self.window - now)

    def reset(self, key: str) -> None:
        """Forget every request recorded for `key`. An unknown key is ignored."""
        self._hits.pop(key, None)

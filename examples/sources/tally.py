"""A stock tally: items counted in and out, never below zero."""


class Tally:
    """Counts of items by name."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}

    def add(self, item: str, count: int = 1) -> int:
        """Add `count` of `item`; returns the new count."""
        if count < 1:
            raise ValueError("count must be at least 1")
        self._counts[item] = self._counts.get(item, 0) + count
        return self._counts[item]

    def remove(self, item: str, count: int = 1) -> int:
        """Take `count` of `item` out; returns what is left. Raises KeyError for an item
        never added and ValueError when there are fewer than `count`."""
        have = self._counts[item]
        if count > have:
            raise ValueError(f"only {have} {item} left")
        self._counts[item] = have - count
        return self._counts[item]

    def total(self) -> int:
        """All items counted."""
        return sum(self._counts.values())

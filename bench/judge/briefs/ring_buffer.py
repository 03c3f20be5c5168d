"""A fixed-size buffer that keeps only the most recent items."""


class RingBuffer:
    """Holds at most capacity items; adding to a full buffer drops the oldest."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._items: list = []

    def append(self, item) -> None:
        """Add item at the end, dropping the oldest item if the buffer is full."""
        self._items.append(item)
        if len(self._items) > self.capacity:
            self._items.pop(0)

    def items(self) -> list:
        """The items, oldest first, as a new list."""
        return list(self._items)

    def is_full(self) -> bool:
        """True when the buffer holds capacity items."""
        return len(self._items) == self.capacity

    def __len__(self) -> int:
        return len(self._items)


def moving_average(values, window: int) -> list[float]:
    """Mean of each run of window consecutive values, in order."""
    buf = RingBuffer(window)
    averages = []
    for value in values:
        buf.append(value)
        if buf.is_full():
            averages.append(sum(buf.items()) / window)
    return averages

"""Split lists into pieces of equal size."""


def chunks(items: list, size: int) -> list[list]:
    """items in consecutive lists of size items each; the last may be shorter."""
    if size < 1:
        raise ValueError("size must be at least 1")
    return [items[i : i + size] for i in range(0, len(items), size)]

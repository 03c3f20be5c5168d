"""Initials of people's names."""


def initials(name: str) -> str:
    """The first letter of each word of name, upper-cased, with a dot after each."""
    parts = name.split()
    if not parts:
        raise ValueError("empty name")
    return "".join(p[0].upper() + "." for p in parts)

"""Colours as #RRGGBB text and as (red, green, blue) numbers."""


def parse_hex(text: str) -> tuple[int, int, int]:
    """The (red, green, blue) values, 0-255 each, of a colour written #RRGGBB or #RGB.

    Raises ValueError when the text is not such a colour.
    """
    value = text.strip().lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    if len(value) != 6 or any(c not in "0123456789abcdefABCDEF" for c in value):
        raise ValueError(f"not a hex colour: {text!r}")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def to_hex(red: int, green: int, blue: int) -> str:
    """#rrggbb text for three values 0-255; raises ValueError outside that range."""
    for v in (red, green, blue):
        if not 0 <= v <= 255:
            raise ValueError(f"{v} is outside 0-255")
    return f"#{red:02x}{green:02x}{blue:02x}"

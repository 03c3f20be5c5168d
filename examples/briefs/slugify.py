"""Turn titles into URL slugs."""

import re
import unicodedata


def slugify(text: str, max_length: int = 60) -> str:
    """Lower-case ASCII words joined by hyphens, cut at max_length characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    return "-".join(words)[:max_length].rstrip("-")


def unique_slug(text: str, taken: set[str]) -> str:
    """A slug of text that is not in taken, adding -2, -3, ... when needed."""
    base = slugify(text)
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug

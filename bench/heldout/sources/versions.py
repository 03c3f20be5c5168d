"""Version strings of the form MAJOR.MINOR.PATCH, such as "2.4.1": parse, compare, bump."""


class VersionError(ValueError):
    """A string that is not a version of the form MAJOR.MINOR.PATCH."""


def parse_version(text: str) -> tuple[int, int, int]:
    """The three numbers of a version string. A leading "v" ("v2.4.1") is allowed, and
    surrounding spaces are ignored. Raises VersionError for anything else."""
    s = text.strip()
    if s[:1] in ("v", "V"):
        s = s[1:]
    parts = s.split(".")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        raise VersionError(f"not a version: {text!r}")
    major, minor, patch = (int(p) for p in parts)
    return major, minor, patch


def is_newer(a: str, b: str) -> bool:
    """True when version `a` is later than version `b` ("2.10.0" is later than "2.9.3")."""
    return parse_version(a) > parse_version(b)


def bump(version: str, part: str = "patch") -> str:
    """The next version: `part` is "major", "minor" or "patch", and the parts after it
    go back to 0. The result has no leading "v"."""
    major, minor, patch = parse_version(version)
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise ValueError(f"part must be 'major', 'minor' or 'patch', not {part!r}")

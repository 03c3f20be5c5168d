"""What goes into an example's sandbox from the source's folder: its own regular .py
files and packages, never a file a link points at."""

from __future__ import annotations

import os

import pytest

from batch.judging.doc_examples.running import _copy_folder

SECRET = "LINK-SIGNING-KEY-0123456789"


@pytest.fixture
def layout(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "runs.sqlite").write_text(SECRET)
    (outside / "private.py").write_text(f"KEY = {SECRET!r}\n")
    os.chmod(outside / "private.py", 0o600)
    (outside / "pkg").mkdir()
    (outside / "pkg" / "__init__.py").write_text(f"KEY = {SECRET!r}\n")
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (folder / "helpers.py").write_text("X = 1\n")
    (folder / "real_pkg").mkdir()
    (folder / "real_pkg" / "__init__.py").write_text("Y = 2\n")
    return tmp_path, outside, folder


def _copied(tmp_path, folder) -> dict[str, str]:
    into = tmp_path / "work"
    into.mkdir()
    _copy_folder(folder / "calc.py", "calc", "def add(a, b):\n    return a + b\n", into)
    return {str(p.relative_to(into)): p.read_text() for p in into.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "link,target",
    [
        ("leak.py", "runs.sqlite"),  # the reported one: the run log
        ("leak2.py", "private.py"),  # a private file
        ("linked_pkg", "pkg"),  # a package that is a link
    ],
)
def test_a_link_in_the_folder_carries_nothing_into_the_sandbox(layout, link, target):
    tmp_path, outside, folder = layout
    (folder / link).symlink_to(outside / target)
    copied = _copied(tmp_path, folder)
    assert not any(SECRET in text for text in copied.values())
    assert not any(link in name for name in copied)
    # the folder's own files still go in
    assert {"_src/helpers.py", "_src/real_pkg/__init__.py", "_src/calc.py"} <= set(copied)


def test_a_link_inside_a_package_is_not_followed(layout):
    tmp_path, outside, folder = layout
    (folder / "real_pkg" / "leak.py").symlink_to(outside / "runs.sqlite")
    (folder / "real_pkg" / "sub").symlink_to(outside / "pkg")
    copied = _copied(tmp_path, folder)
    assert not any(SECRET in text for text in copied.values())
    assert "_src/real_pkg/__init__.py" in copied

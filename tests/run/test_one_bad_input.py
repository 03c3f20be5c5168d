"""Whatever one input is, it is that input's one-line error and the batch goes on: a
deep front matter, a symlink loop, a fifo, a device, a huge CSV cell, a deep answers
file. Each class holds the reported case and variants."""

from __future__ import annotations

import csv
import os
import threading
from pathlib import Path

import pytest

from batch.inputs.briefs import BadBrief, Brief, load_yaml, scan_folder
from batch.inputs.sources import scan_source

GOOD = "---\nid: good\n---\nWrite a memo about the office closure on Friday.\n"


def _scan_in_time(folder: Path, seconds: float = 10.0):
    """scan_folder, failing the test (not hanging it) if it blocks."""
    result: dict = {}
    worker = threading.Thread(
        target=lambda: result.update(scan=scan_folder(folder, 200_000)), daemon=True
    )
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the scan blocked"
    return result["scan"]


def _by_origin(scan) -> dict[str, Brief | BadBrief]:
    return {Path(b.origin).name: b for b in scan.briefs}


@pytest.mark.parametrize(
    "front",
    [
        "title: " + "[" * 400 + "]" * 400,  # the reported one: flow sequences
        "title: " + "{a: " * 300 + "1" + "}" * 300,  # flow mappings
        "title:\n" + "".join("  " * i + "- \n" for i in range(300)) + "  " * 300 + "x",  # block
    ],
)
def test_a_deeply_nested_front_matter_is_that_briefs_error(tmp_path, front):
    (tmp_path / "deep.md").write_text(f"---\n{front}\n---\nWrite a memo.\n")
    (tmp_path / "good.md").write_text(GOOD)
    found = _by_origin(_scan_in_time(tmp_path))
    assert isinstance(found["good.md"], Brief)
    bad = found["deep.md"]
    assert isinstance(bad, BadBrief) and "\n" not in bad.reason and len(bad.reason) < 400


def test_a_front_matter_of_many_kilobytes_is_refused(tmp_path):
    (tmp_path / "big.md").write_text("---\ntitle: " + "x" * 20_000 + "\n---\nWrite.\n")
    [bad] = _scan_in_time(tmp_path).briefs
    assert isinstance(bad, BadBrief) and "front matter" in bad.reason


@pytest.mark.parametrize(
    "links",
    [
        [("loop1.md", "loop2.md"), ("loop2.md", "loop1.md")],  # the reported loop
        [("self.md", "self.md")],  # a link to itself
        [("dangling.md", "nowhere.md")],  # a link to nothing
    ],
)
def test_a_symlink_that_goes_nowhere_is_that_files_error(tmp_path, links):
    for name, target in links:
        (tmp_path / name).symlink_to(tmp_path / target)
    (tmp_path / "good.md").write_text(GOOD)
    found = _by_origin(_scan_in_time(tmp_path))
    assert isinstance(found["good.md"], Brief)
    for name, _ in links:
        assert isinstance(found[name], BadBrief)


@pytest.mark.parametrize("name", ["pipe.md", "pipe.py"])
def test_a_fifo_does_not_hang_the_scan(tmp_path, name):
    os.mkfifo(tmp_path / name)
    (tmp_path / "good.md").write_text(GOOD)
    found = _by_origin(_scan_in_time(tmp_path))
    assert isinstance(found["good.md"], Brief)
    assert isinstance(found[name], BadBrief) and "regular file" in found[name].reason


def test_a_link_to_a_device_is_not_read(tmp_path):
    (tmp_path / "zero.md").symlink_to("/dev/zero")  # outside the folder too
    (tmp_path / "good.md").write_text(GOOD)
    found = _by_origin(_scan_in_time(tmp_path))
    assert isinstance(found["zero.md"], BadBrief)


def test_a_fifo_given_as_the_sheet_is_a_one_line_error(tmp_path):
    from batch.errors import BriefloopError

    os.mkfifo(tmp_path / "sheet.csv")
    with pytest.raises(BriefloopError, match="not a regular file"):
        scan_source(str(tmp_path / "sheet.csv"), 200_000)


@pytest.mark.parametrize("size,ok", [(150_000, True), (140_000, True), (250_000, False)])
def test_one_long_csv_cell_is_that_rows_business(tmp_path, size, ok):
    sheet = tmp_path / "briefs.csv"
    with sheet.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "brief"])
        w.writerow(["long", "Write a memo. " + "x" * size])
        w.writerow(["short", "Write a memo about Friday."])
    found = {b.id: b for b in scan_source(str(sheet), 200_000).briefs}
    assert isinstance(found["short"], Brief)
    assert isinstance(found["long"], Brief if ok else BadBrief)


@pytest.mark.parametrize(
    "text",
    ["a: " + "[" * 2000 + "]" * 2000, "a:\n" + "".join("  " * i + "- \n" for i in range(2000))],
)
def test_yaml_is_bounded_in_depth(text):
    import yaml

    with pytest.raises(yaml.YAMLError, match="nested more than"):
        load_yaml(text)
    assert load_yaml("a: [[1, 2], {b: [3]}]") == {"a": [[1, 2], {"b": [3]}]}

import pytest

from batch.inputs.briefs import (
    BadBrief,
    Brief,
    brief_from_fields,
    load_brief_file,
    scan_folder,
    split_front_matter,
)
from batch.output import safe_filename, write_output


def scan(folder, max_bytes=10_000):
    result = scan_folder(folder, max_bytes)
    return {b.id: b for b in result.briefs}, result


def test_front_matter_and_body(tmp_path):
    p = tmp_path / "a.md"
    p.write_text("---\nid: memo-1\ntitle: T\nmax_words: 50\n---\nWrite it.\n")
    b = load_brief_file(p, 1000)
    assert (b.id, b.title, b.max_words, b.text) == ("memo-1", "T", 50, "Write it.")


def test_id_defaults_to_file_stem(tmp_path):
    p = tmp_path / "launch-note.txt"
    p.write_text("Write a launch note.")
    assert load_brief_file(p, 1000).id == "launch-note"


def test_source_file_becomes_documentation_task(tmp_path):
    p = tmp_path / "util.py"
    p.write_text("def f(x):\n    return x + 1\n")
    b = load_brief_file(p, 1000)
    assert b.kind == "source" and "util.py" in b.text and "return x + 1" in b.source_text


@pytest.mark.parametrize(
    "name,content,reason",
    [
        ("empty.md", b"   \n", "empty file"),
        ("binary.md", b"abc\x00def", "binary file"),
        ("latin1.md", "caf\xe9".encode("latin-1"), "not UTF-8"),
        ("badfm.md", b"---\nid: [unclosed\n---\nbody", "front matter does not parse"),
        ("unknownkey.md", b"---\nidd: x\n---\nbody", "unknown front matter key"),
        ("limits.md", b"---\nmax_words: lots\n---\nbody", "max_words must be a whole number"),
        ("nobody.md", b"---\nid: x\n---\n", "no text"),
        ("big.md", b"x" * 20_000, "too large"),
        ("listid.md", b"---\nid: [a, b]\n---\nbody", "id must be text or a number"),
        ("mapid.md", b"---\nid: {a: 1}\n---\nbody", "id must be text or a number"),
        ("boolid.md", b"---\nid: yes\n---\nbody", "id must be text or a number"),
        ("nlid.md", b'---\nid: "a\\nb"\n---\nbody', "line break"),
    ],
)
def test_bad_inputs_are_named(tmp_path, name, content, reason):
    (tmp_path / name).write_bytes(content)
    (tmp_path / "good.md").write_text("A fine brief.")
    briefs, _ = scan(tmp_path)
    bad = [b for b in briefs.values() if isinstance(b, BadBrief)]
    assert len(bad) == 1 and reason in bad[0].reason
    assert isinstance(briefs["good"], Brief)


def test_dangling_symlink_is_unreadable(tmp_path):
    (tmp_path / "gone.md").symlink_to(tmp_path / "missing.md")
    briefs, _ = scan(tmp_path)
    assert "cannot read" in briefs["gone"].reason


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text("secret")
    folder = tmp_path / "briefs"
    folder.mkdir()
    (folder / "link.md").symlink_to(outside)
    briefs, _ = scan(folder)
    assert "outside the brief folder" in briefs["link"].reason


def test_duplicate_ids(tmp_path):
    (tmp_path / "a.md").write_text("---\nid: same\n---\none")
    (tmp_path / "b.md").write_text("---\nid: same\n---\ntwo")
    result = scan_folder(tmp_path, 1000)
    kinds = [type(b).__name__ for b in result.briefs]
    assert kinds == ["Brief", "BadBrief"]
    assert "duplicate id" in result.briefs[1].reason


def test_other_files_are_skipped(tmp_path):
    (tmp_path / "photo.png").write_bytes(b"\x89PNG")
    (tmp_path / ".hidden.md").write_text("x")
    (tmp_path / "a.md").write_text("brief")
    (tmp_path / "older").mkdir()
    (tmp_path / "older" / "b.md").write_text("brief")
    result = scan_folder(tmp_path, 1000)
    assert [b.id for b in result.briefs] == ["a"]
    # every entry not read is named, so a brief put in a subfolder is not silently lost
    assert result.skipped == [
        ".hidden.md (hidden)",
        "older/ (a folder: briefs are read from the top level only)",
        "photo.png",
    ]


def test_front_matter_must_be_mapping():
    with pytest.raises(ValueError, match="mapping"):
        split_front_matter("---\n- a\n---\nbody")


@pytest.mark.parametrize("unsafe", ["../x", "/etc/passwd", "..", "a/../../b", "", "\x00"])
def test_unsafe_ids_stay_in_the_output_folder(tmp_path, unsafe):
    out = tmp_path / "out"
    path = write_output(out, unsafe, {"brief_id": unsafe}, "text")
    assert path.parent == out.resolve()
    assert "/" not in safe_filename(unsafe) and not safe_filename(unsafe).startswith(".")


def test_distinct_ids_get_distinct_files():
    assert safe_filename("a b") != safe_filename("a_b") != safe_filename("a-b")
    assert safe_filename("q3-memo") == "q3-memo"


@pytest.mark.parametrize(
    ("text", "limits"),
    [
        ("Write a one-paragraph FAQ answer (60 to 120 words) on offline use.", (60, 120)),
        ("A blurb of between 40 and 80 words.", (40, 80)),
        ("Keep it under 100 words.", (None, 100)),
        ("No more than 150 words, please.", (None, 150)),
        ("At least 50 words on the new desk.", (50, None)),
        ("Write 120-60 words.", (60, 120)),
        ("The shop has 12 staff. Write a notice.", (None, None)),
    ],
)
def test_length_limits_written_in_the_brief_are_read(text, limits):
    brief = brief_from_fields(id="b", text=text, origin="x")
    assert (brief.min_words, brief.max_words) == limits


def test_front_matter_limits_win_over_the_briefs_words(tmp_path):
    path = tmp_path / "b.md"
    path.write_text("---\nmax_words: 90\n---\nKeep it under 200 words.\n", encoding="utf-8")
    assert load_brief_file(path, 10_000).max_words == 90


def _alias_bomb(key: str) -> str:
    levels = ['&a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"&{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return f"---\n{key}: [{', '.join(levels)}]\n---\nWrite a memo.\n"


@pytest.mark.parametrize("key", ["title", "id", "min_words", "rubric"])
def test_a_front_matter_of_nested_aliases_is_a_bad_brief_at_once(tmp_path, key):
    import time

    (tmp_path / "bomb.md").write_text(_alias_bomb(key))
    (tmp_path / "fine.md").write_text("Write a memo.")
    assert len(_alias_bomb(key)) < 600  # 9**9 values if expanded
    started = time.perf_counter()
    found, _ = scan(tmp_path)
    assert time.perf_counter() - started < 5
    bad = found["bomb"]
    assert isinstance(bad, BadBrief) and "aliases" in bad.reason and len(bad.reason) < 300
    assert isinstance(found["fine"], Brief)


def test_front_matter_reads_as_before_and_aliases_are_refused():
    data, body = split_front_matter("---\ntitle: T\nmax_words: 5\n---\nx")
    assert data == {"title": "T", "max_words": 5} and body == "x"
    with pytest.raises(ValueError, match="aliases"):
        split_front_matter("---\ntitle: &t T\nrubric: *t\n---\nx")


@pytest.mark.parametrize(
    "end", ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029", "\x0b", "\x0c"], ids=repr
)
def test_every_unicode_line_end_is_a_line_end_and_keeps_the_front_matter(tmp_path, end):
    text = end.join(
        ["---", "id: memo-7", "title: Closure", "---", "Office closed Friday.", "Tell all."]
    )
    path = tmp_path / "b.md"
    path.write_text(text, encoding="utf-8", newline="")
    brief = load_brief_file(path, 10_000)
    assert (brief.id, brief.title) == ("memo-7", "Closure")
    assert brief.text.splitlines() == ["Office closed Friday.", "Tell all."]
    assert brief.text.count("\n") == 1

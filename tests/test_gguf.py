"""The embedded model file: assembled from parts, verified, refused when it does not match."""

from __future__ import annotations

import hashlib

import pytest

from batch.errors import ModelFileError
from batch.models import gguf


def test_assemble_concatenates_in_order_and_checks_the_hash(tmp_path):
    parts = []
    for i, data in enumerate([b"GGUF-part-one|", b"part-two|", b"three"]):
        p = tmp_path / f"part{i}.bin"
        p.write_bytes(data)
        parts.append(p)
    whole = b"GGUF-part-one|part-two|three"
    target = tmp_path / "cache" / "m.gguf"
    gguf.assemble(parts, target, hashlib.sha256(whole).hexdigest())
    assert target.read_bytes() == whole


def test_assemble_refuses_a_wrong_hash_and_leaves_nothing(tmp_path):
    p = tmp_path / "p.bin"
    p.write_bytes(b"damaged")
    target = tmp_path / "cache" / "m.gguf"
    with pytest.raises(ModelFileError, match="damaged; reinstall"):
        gguf.assemble([p], target, "0" * 64)
    assert not target.exists() and list(target.parent.iterdir()) == []


def test_a_gguf_path_with_a_wrong_sha256_is_refused(tmp_path):
    f = tmp_path / "own.gguf"
    f.write_bytes(b"not the model you think")
    with pytest.raises(ModelFileError, match="refusing to load it"):
        gguf.verified_model_path(str(f), tmp_path, sha256="1" * 64)
    good = hashlib.sha256(f.read_bytes()).hexdigest()
    assert gguf.verified_model_path(str(f), tmp_path, sha256=good) == f


def test_unknown_model_name(tmp_path):
    with pytest.raises(ModelFileError, match="neither a packaged model"):
        gguf.verified_model_path("llama-70b", tmp_path)


def test_a_tampered_cache_file_is_refused(tmp_path, monkeypatch):
    model = gguf.PackagedModel("tiny", ("x",), ("x.bin",), hashlib.sha256(b"ok").hexdigest())
    monkeypatch.setitem(gguf.PACKAGED, "tiny", model)
    cached = tmp_path / f"tiny-{model.sha256[:12]}.gguf"
    cached.write_bytes(b"tampered")
    with pytest.raises(ModelFileError, match="refusing to load it"):
        gguf.verified_model_path("tiny", tmp_path)


def test_missing_package_says_how_to_install(tmp_path):
    model = gguf.PackagedModel("tiny", ("no-such-package-xyz",), ("x.bin",), "0" * 64)
    with pytest.raises(ModelFileError, match=r"pip install -e '\.\[embedded\]'"):
        gguf.locate_parts(model)


def test_the_packaged_qwen_parts_are_found_through_metadata():
    parts = gguf.locate_parts(gguf.QWEN_05B)
    assert [p.name for p in parts] == [f"part{i:02d}.bin" for i in range(1, 7)]
    assert sum(p.stat().st_size for p in parts) > 400_000_000

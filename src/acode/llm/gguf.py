"""Read the metadata header of a GGUF file (name, architecture, context length, chat template) without
loading the model or importing llama.cpp. Long arrays (the tokenizer's vocabulary) are skipped."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from acode.errors import ModelError

_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_KEEP_ARRAY_ITEMS = 64  # longer arrays are summarised by their length


def _read(handle: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = handle.read(size)
    if len(data) != size:
        raise EOFError("GGUF header ends early")
    return struct.unpack(fmt, data)[0]


def _string(handle: BinaryIO) -> str:
    length = _read(handle, "<Q")
    return handle.read(length).decode("utf-8", errors="replace")


def _value(handle: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _read(handle, _SCALARS[kind])
    if kind == _STRING:
        return _string(handle)
    if kind == _ARRAY:
        item_kind = _read(handle, "<I")
        count = _read(handle, "<Q")
        if item_kind in _SCALARS and count > _KEEP_ARRAY_ITEMS:
            handle.seek(struct.calcsize(_SCALARS[item_kind]) * count, 1)
            return f"<array of {count}>"
        items = [_value(handle, item_kind) for _ in range(count)]
        return items if count <= _KEEP_ARRAY_ITEMS else f"<array of {count}>"
    raise ValueError(f"unknown GGUF value type {kind}")


def read_metadata(path: Path) -> dict[str, Any]:
    try:
        with Path(path).open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise ValueError("not a GGUF file")
            version = _read(handle, "<I")
            _tensors = _read(handle, "<Q")
            count = _read(handle, "<Q")
            meta: dict[str, Any] = {"gguf.version": version}
            for _ in range(count):
                key = _string(handle)
                meta[key] = _value(handle, _read(handle, "<I"))
            return meta
    except (OSError, ValueError, EOFError, struct.error) as exc:
        raise ModelError(
            "ACODE-MODEL-040",
            f"cannot read the GGUF metadata of {path}: {exc}",
            hint="the file may be damaged; for a bundled model run `acode models pull --force`",
        ) from None


def summary(meta: dict[str, Any]) -> dict[str, Any]:
    """The few facts a person asks about a model file."""
    arch = meta.get("general.architecture", "")
    return {
        "name": meta.get("general.name"),
        "architecture": arch or None,
        "context_length": meta.get(f"{arch}.context_length"),
        "parameters_label": meta.get("general.size_label"),
        "file_type": meta.get("general.file_type"),
        "has_chat_template": "tokenizer.chat_template" in meta,
    }

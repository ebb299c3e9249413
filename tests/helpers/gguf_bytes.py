"""Hand-built GGUF headers for tests (no tensors, just metadata)."""

from __future__ import annotations

import struct

STRING, ARRAY, UINT32, FLOAT32 = 8, 9, 4, 6


def gguf_string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def kv_string(key: str, value: str) -> bytes:
    return gguf_string(key) + struct.pack("<I", STRING) + gguf_string(value)


def kv_uint32(key: str, value: int) -> bytes:
    return gguf_string(key) + struct.pack("<II", UINT32, value)


def kv_float_array(key: str, values: list[float]) -> bytes:
    return (
        gguf_string(key)
        + struct.pack("<IIQ", ARRAY, FLOAT32, len(values))
        + struct.pack(f"<{len(values)}f", *values)
    )


def kv_string_array(key: str, values: list[str]) -> bytes:
    return (
        gguf_string(key)
        + struct.pack("<IIQ", ARRAY, STRING, len(values))
        + b"".join(map(gguf_string, values))
    )


def tiny_gguf(*entries: bytes) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(entries)) + b"".join(entries)

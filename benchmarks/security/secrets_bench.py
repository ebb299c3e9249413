"""acode.secrets on real text: how fast redaction is, how often it hides something in ordinary code that
is no secret (over-redaction), and whether it finds a seeded set of real secret shapes. Prints JSON.

    python benchmarks/security/secrets_bench.py [--max-files 400] [--path-aware]

The corpus is the Python standard library's own .py files (no test folders), read as "stored text"
(``path=None``: the mode every record writer uses) unless ``--path-aware`` passes each file's name, as the
review's evidence does. Every finding in it is counted; the standard library holds no real credentials,
so each is over-redaction (the list is printed so a person can check that)."""

from __future__ import annotations

import argparse
import json
import os
import sysconfig
import time
from pathlib import Path

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SEEDED = {
    "env-assignment": "DB_PASSWORD=hunter2isnotsafe",
    "yaml-password": "database:\n  password: s3cr3tP4ssw0rd",
    "aws-credentials-file": f"[default]\naws_secret_access_key = {AWS_SECRET}",
    "aws-in-code": f'AWS_SECRET = "{AWS_SECRET}"',
    "aws-key-id": 'key = "AKIAABCDEFGHIJKLMNOP"',
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAz1Y2dGhpcyBpcyBub3QgYSByZWFs\n-----END RSA "
           "PRIVATE KEY-----",
    "github-token": "token ghp_" + "a1B2" * 9,
    "url-credentials": "https://deploy:pa55word99@example.com/repo.git",
    "quoted-password": 'password = "hunter2hunter2"',
    "token-env": "GITHUB_TOKEN=abcdef123456xyz",
    "high-entropy-string": 'blob = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUo="',
}


def corpus(max_files: int) -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files: list[Path] = []
    for folder, dirs, names in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs
                         if d not in ("site-packages", "__pycache__", "test", "tests", "idle_test"))
        files += [Path(folder) / n for n in sorted(names) if n.endswith(".py")]
    return files[:max_files]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-files", type=int, default=400)
    parser.add_argument("--path-aware", action="store_true",
                        help="pass each file's name (source files: quoted values)")
    args = parser.parse_args()
    from acode.secrets import find_secrets, redact

    found_seeded = {name: bool(find_secrets(text)) and redact(text) != text for name, text in SEEDED.items()}
    files = corpus(args.max_files)
    texts = [(f, f.read_text(encoding="utf-8", errors="replace")) for f in files]
    chars = sum(len(t) for _, t in texts)
    lines = sum(t.count("\n") for _, t in texts)
    started = time.perf_counter()
    hits = []
    for path, text in texts:
        for secret in find_secrets(text, path.name if args.path_aware else None):
            line = text.splitlines()[secret.line - 1].strip()
            hits.append({"file": path.name, "line": secret.line, "kind": secret.kind, "text": line[:100]})
    seconds = time.perf_counter() - started
    print(json.dumps({
        "mode": "path-aware" if args.path_aware else "stored text (path=None)",
        "files": len(files), "lines": lines, "chars": chars, "seconds": round(seconds, 2),
        "lines_per_second": round(lines / seconds), "mb_per_second": round(chars / seconds / 1e6, 2),
        "findings_in_corpus": len(hits), "findings_per_10k_lines": round(len(hits) / lines * 10_000, 2),
        "seeded_found": sum(found_seeded.values()), "seeded_total": len(SEEDED),
        "seeded_missed": [name for name, ok in found_seeded.items() if not ok],
        "findings": hits,
    }, indent=2))


if __name__ == "__main__":
    main()

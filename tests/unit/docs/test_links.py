"""Every relative link in the README, the CHANGELOG, docs/ and benchmarks/ resolves: the file exists and,
for a markdown target, the `#anchor` is one of its headings as GitHub slugs them (issue 53 moved most
pages)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def markdown_files(root: Path) -> list[Path]:
    files = [root / "README.md", root / "CHANGELOG.md"]
    files += sorted((root / "docs").rglob("*.md")) + sorted((root / "benchmarks").rglob("*.md"))
    return [f for f in files if f.is_file() and ".cache" not in f.parts]


def github_slug(heading: str) -> str:
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    seen: dict[str, int] = {}
    found, fenced = set(), False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or not re.match(r"#{1,6} ", line):
            continue
        slug = github_slug(re.sub(r"^#+ ", "", line))
        if slug in seen:
            seen[slug] += 1
            slug = f"{slug}-{seen[slug]}"
        else:
            seen[slug] = 0
        found.add(slug)
    return found


def links(markdown: str) -> list[str]:
    outside_code = re.sub(r"```.*?```", "", markdown, flags=re.DOTALL)
    outside_code = re.sub(r"`[^`\n]*`", "", outside_code)
    return [a or b for a, b in LINK.findall(outside_code)]


def broken_links(root: Path) -> list[str]:
    broken = []
    for page in markdown_files(root):
        for target in links(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(root)}: {target}"
            if not resolved.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text("utf-8")):
                broken.append(f"{where} (no heading #{anchor})")
    return broken


def test_every_relative_link_resolves():
    assert broken_links(ROOT) == []


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Trust model: what runs without asking", "trust-model-what-runs-without-asking"),
        ("The diff's time (issue 31, November 26, 2026)", "the-diffs-time-issue-31-november-26-2026"),
        ("`acode review` — an evidence-grounded review", "acode-review--an-evidence-grounded-review"),
    ],
)
def test_github_slugs(heading, slug):
    assert github_slug(heading) == slug


def test_a_broken_link_or_anchor_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        "# Top\n\n## Usage\n\n[ok](#usage) [gone](docs/nope.md) [bad](docs/a.md#nowhere)\n"
    )
    (tmp_path / "docs" / "a.md").write_text("# A\n\n[back](../README.md#usage) [`x`](#a)\n")
    assert broken_links(tmp_path) == [
        "README.md: docs/nope.md (no such file)",
        "README.md: docs/a.md#nowhere (no heading #nowhere)",
    ]

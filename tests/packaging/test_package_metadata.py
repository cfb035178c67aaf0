"""The wheel is one a package index would take: its metadata names the licence (and ships the file), the authors,
classifiers, keywords and project links, and the README it carries links only to absolute addresses, since a page
on an index has no repository beside it for a relative link to reach."""

from __future__ import annotations

import email.parser
import re
import subprocess
import sys
import zipfile
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def metadata(tmp_path_factory: pytest.TempPathFactory) -> tuple[Message, list[str]]:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = out.glob("pseudoclaude-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        text = next(archive.read(name) for name in names if name.endswith(".dist-info/METADATA")).decode()
    return email.parser.Parser().parsestr(text), names


def test_the_licence_is_declared_and_its_file_ships(metadata: tuple[Message, list[str]]) -> None:
    message, names = metadata
    assert message["License-Expression"] == "MIT"
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert "MIT License" in (ROOT / "LICENSE").read_text()


def test_authors_classifiers_keywords_and_links_are_there(metadata: tuple[Message, list[str]]) -> None:
    message, names = metadata
    assert message["Author"]
    classifiers = message.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert "Typing :: Typed" in classifiers and "pseudoclaude/py.typed" in names
    assert "coding agent" in (message["Keywords"] or "")
    links = dict(link.split(", ", 1) for link in message.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues"} <= set(links)
    assert all(url.startswith("https://") for url in links.values())


def test_the_readme_on_the_index_has_no_relative_link(metadata: tuple[Message, list[str]]) -> None:
    message, _ = metadata
    readme = message.get_payload()
    assert isinstance(readme, str) and readme.startswith("# PseudoClaude")
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert targets, "the README links somewhere"
    relative = [target for target in targets if not target.startswith(("https://", "http://", "#"))]
    assert relative == []

"""The version is written in one place, inspector/__init__.py; everything else reads it or is checked here."""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET

from helpers import ROOT

from inspector import __version__, resources

SEMVER = re.compile(r"\d+\.\d+\.\d+(?:[-.]?(?:a|b|rc|dev|post)\d*)?")


def changelog_releases() -> list[tuple[str, str]]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)


def metainfo_releases() -> list[tuple[str, str]]:
    root = ET.parse(resources.path(resources.METAINFO_FILE)).getroot()
    return [(r.get("version", ""), r.get("date", "")) for r in root.iter("release")]


def test_the_version_is_a_plain_release_number():
    assert SEMVER.fullmatch(__version__), __version__


def test_pyproject_reads_the_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "inspector.__version__"}


def test_the_newest_changelog_release_is_this_version():
    releases = changelog_releases()
    assert releases, "CHANGELOG.md has no '## [X.Y.Z] - YYYY-MM-DD' release heading"
    assert releases[0][0] == __version__


def test_the_newest_metainfo_release_is_this_version_on_the_changelogs_date():
    assert metainfo_releases()[0] == changelog_releases()[0]
    assert [version for version, _ in metainfo_releases()] == [version for version, _ in changelog_releases()]


def test_the_pyinstaller_spec_and_build_script_read_the_version_instead_of_writing_it():
    spec = (ROOT / "installers" / "mcp-inspector.spec").read_text(encoding="utf-8")
    assert '"inspector" / "__init__.py"' in spec
    for path in ("installers/mcp-inspector.spec", "installers/build.sh", "pyproject.toml"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert __version__ not in text, f"{path} writes the version {__version__} itself"


def test_no_module_but_inspector_init_assigns_a_version():
    assigned = [str(path.relative_to(ROOT)) for path in (ROOT / "inspector").rglob("*.py")
                if re.search(r"^__version__\s*=", path.read_text(encoding="utf-8"), re.M)]
    assert assigned == ["inspector/__init__.py"]

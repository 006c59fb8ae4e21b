"""`pip install .` into a virtual environment of its own gives a working `mcp-inspector`: nothing from the
checkout, the test suite or the system site-packages is needed.

The venv is made with ``python -m venv`` (no system site-packages) in the test cache folder and made again
whenever the project's dependencies change, so only what ``pip install .`` put there is in it; each run
installs the checkout again. The first run downloads PySide6 (about 1 min with a warm pip cache).
"""

from __future__ import annotations

import json
import sys

import pytest
from helpers import ROOT
from packaging_support import INSTALL_TIMEOUT, clean_env, home_env, run, source_copy, venv, venv_lock

from inspector import __version__, resources

# one worker installs into the shared venv and runs every test against it (pytest-xdist, pyproject addopts)
pytestmark = [pytest.mark.packaging, pytest.mark.xdist_group("clean-venv")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The shared venv with the checkout installed. pip builds a project in its source tree (``build/``), so
    it builds a copy of the checkout: nothing else that builds or reads the checkout at the same time (another
    worker, another pytest run, an editor) can meet a half-written ``build/``; the venv lock keeps two runs
    from installing into it at once (issue 25)."""
    python = venv("clean-venv")
    source = source_copy(tmp_path_factory.mktemp("checkout") / "mcp-inspector")
    with venv_lock("clean-venv"):
        done = run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(source)],
                   timeout=INSTALL_TIMEOUT, what="pip install .", env=clean_env())
    assert done.returncode == 0, done.stderr[-5000:]
    return python


def test_pip_install_gives_an_mcp_inspector_command_that_says_its_version(installed, tmp_path):
    done = run([str(installed.parent / "mcp-inspector"), "--version"], timeout=60, what="--version",
               env=home_env(tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"mcp-inspector {__version__}\n")


def test_the_installed_demo_runs_headless_without_a_display(installed, tmp_path):
    done = run([str(installed.parent / "mcp-inspector"), "--demo"], timeout=120, what="mcp-inspector --demo",
               env=home_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "no display here, so the demo runs headless" in done.stderr
    assert "6 sent, 6 received, 2 framing errors, 1 stderr line; server exited with code 0" in done.stdout


def test_the_installed_package_is_the_one_imported_and_has_its_resources_and_dependencies(installed, tmp_path):
    probe = ("import importlib.metadata as m, inspector, inspector.resources as r, inspector.ui.app, qasync, "
             "PySide6.QtWidgets\n"
             "print(inspector.__file__)\n"
             "print(m.version('mcp-inspector-desktop'))\n"
             "print(sorted(p.name for p in r.HERE.iterdir() if p.suffix != '.py' and p.is_file()))")
    done = run([str(installed), "-c", probe], timeout=60, what="the import probe", env=clean_env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where, version, files = done.stdout.splitlines()
    assert where.startswith(str(installed.parent.parent)) and not where.startswith(str(ROOT) + "/inspector")
    assert version == __version__
    shipped = sorted(p.name for p in resources.HERE.iterdir() if p.suffix != ".py" and p.is_file())
    assert files == str(shipped)
    checked = run([str(installed), "-m", "pip", "check"], timeout=120, what="pip check", env=clean_env())
    assert checked.returncode == 0, checked.stdout


def test_the_installed_package_counts_tokens_offline_with_the_encodings_it_ships(installed, tmp_path):
    """``context``'s encodings are package data: an install counts o200k_base and cl100k_base tokens with an
    empty tiktoken cache (nothing downloaded)."""
    probe = ("from inspector.core.context.tokenizers import tokenizer\n"
             "print(tokenizer('o200k_base').count('hello world'), tokenizer('cl100k_base').count('hello world'))")
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    done = run([str(installed), "-c", probe], timeout=60, what="the token count probe",
               env=clean_env(TIKTOKEN_CACHE_DIR=str(cache)), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"] and list(cache.iterdir()) == []


def test_the_venv_has_no_access_to_the_system_site_packages(installed):
    done = run([str(installed), "-c", "import sys; print(sys.prefix != sys.base_prefix)"], timeout=60,
               what="the venv probe", env=clean_env())
    assert done.stdout.strip() == "True"
    config = (installed.parent.parent / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config
    assert sys.executable != str(installed)


def test_the_installed_seat_serves_its_skill_and_the_docs_pages_it_ships(installed, tmp_path):
    """The seat's package data (issue 44): its SKILL.md and the docs pages served as inspector-docs:// resources,
    each the repository's page byte for byte, are in the installed package, not only in the checkout."""
    from inspector.core.seat.docs_resources import PAGES

    probe = ("import json\n"
             "from inspector.core.seat.docs_resources import PAGES, read_doc\n"
             "from inspector.core.seat.skill import skill_bytes\n"
             "print(json.dumps({'skill': len(skill_bytes()), "
             "'docs': {n: read_doc('inspector-docs://' + n)['text'] for n in PAGES}}))")
    done = run([str(installed), "-c", probe], timeout=60, what="the seat's package data probe", env=clean_env(),
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shipped = json.loads(done.stdout)
    assert shipped["skill"] > 0
    assert shipped["docs"] == {name: (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8") for name in PAGES}

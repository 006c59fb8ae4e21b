"""tests/npm_servers.py installs each npm package into a node_modules of its own: an npm install rewrites the
shared part of the tree it installs into, and a server-everything started while another worker installed
server-filesystem into the same tree failed with ERR_MODULE_NOT_FOUND (its SDK moved under it)."""

from __future__ import annotations

from pathlib import Path

from npm_servers import install_everything, install_filesystem


def node_modules_of(entry: Path) -> Path:
    return next(folder for folder in entry.parents if folder.name == "node_modules")


def test_two_npm_servers_are_installed_in_node_modules_trees_of_their_own():
    _, everything = install_everything()
    _, filesystem = install_filesystem()
    trees = node_modules_of(everything), node_modules_of(filesystem)
    assert trees[0] != trees[1]
    assert not trees[0].is_relative_to(trees[1].parent) and not trees[1].is_relative_to(trees[0].parent)

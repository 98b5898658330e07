"""mkdocs hook: a page's links to repository files outside docs/ resolve, and the site holds
what they point to.

The pages link each measured number to its home, and the homes live outside docs/: benchmark
records (``benchmarks/raw/*.json``, ``benchmarks/notes/*.md``, ``benchmarks/RESULTS.md``),
promoted configs' evidence (``suite/configs/promoted/*.json``) and the stored example runs and
reports (``results/example-*``, ``reports/example-*.html``). A page writes such a link relative
to itself, ``[48.4 min](../benchmarks/raw/racing.json#data.races.1.seconds)``, so it works on
GitHub and in an editor as well as in the site, and ``tests/test_numbers_have_one_home.py``
reads the number at that key.

mkdocs knows only the files under ``docs_dir`` and resolves that link to the file
``../benchmarks/raw/racing.json``. For every such link whose target exists in the repository,
this hook adds the target to the site's files under exactly that name, copied to
``<site>/repo/<path>``; mkdocs then finds it, rewrites the link to the copy and copies it. A
``.md`` target is copied as it is, not rendered as a page. A link to a file that does not exist
is left alone, so ``mkdocs build --strict`` fails on it with mkdocs' own "not found among
documentation files". Only linked files are copied, not all of ``results/``. Anchors into these
files are the records' keys, which mkdocs does not check (it checks anchors into pages only) and
the numbers test does.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File, Files, InclusionLevel

LINK = re.compile(r"\]\((?P<path>[^)\s#]+)")
SITE_FOLDER = "repo"  # where the linked repository files go in the built site


class RepositoryFile(File):
    """A repository file outside docs/, copied into the site as it is (never a page)."""

    def is_documentation_page(self) -> bool:
        return False


def outside_targets(page_uri: str, text: str) -> set[str]:
    """The link targets of a page (at ``page_uri`` under docs/) that lie above docs/, as mkdocs
    resolves them: ``../benchmarks/raw/racing.json``."""
    found = set()
    for link in LINK.finditer(text):
        if "://" in link["path"] or link["path"].startswith(("/", "mailto:")):
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), link["path"]))
        if target.startswith("../"):
            found.add(target)
    return found


def on_files(files: Files, config) -> Files:
    docs = Path(config.docs_dir).resolve()
    repository = Path(config.config_file_path).resolve().parent
    targets = set()
    for page in files.documentation_pages():
        targets |= outside_targets(page.src_uri, Path(page.abs_src_path).read_text())
    for target in sorted(targets):
        path = (docs / target).resolve()
        if not path.is_file() or not path.is_relative_to(repository):
            continue  # left to mkdocs, which says the link is not found
        copy = RepositoryFile.generated(
            config, target, abs_src_path=str(path), inclusion=InclusionLevel.INCLUDED
        )
        copy.dest_uri = f"{SITE_FOLDER}/{path.relative_to(repository).as_posix()}"
        files.append(copy)
    return files

"""docs/architecture.md names the files a newcomer touches: each file it names exists, so a
module split or renamed without the notes fails here; docs/parallel.md's module paths import
and its examples import what they call."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "architecture.md"


def named_files() -> set[str]:
    """The ``.py`` files the notes name, in code spans or in the room sketch."""
    return set(re.findall(r"[\w/]+\.py\b", DOC.read_text()))


def exists(name: str) -> bool:
    if (REPO / name).exists() or (REPO / "spacy_span_eval" / name).exists():
        return True
    # a bare module name, as the room sketch and the column families give them
    return any((REPO / "spacy_span_eval").rglob(Path(name).name))


def test_every_file_the_architecture_notes_name_exists():
    names = named_files()
    assert {"engine/strategies/__init__.py", "cli/option_sets.py", "jobs/options.py"} <= names
    assert sorted(name for name in names if not exists(name)) == []


# -- docs/parallel.md: its module paths import, its examples import what they call ------------
PARALLEL = REPO / "docs" / "parallel.md"
#: What the page's prose gives the reader before an example: an evaluator, documents, a frame.
GIVEN = {"ev", "docs", "df"}


def resolve(dotted: str) -> object:
    """The module or attribute a dotted name names (ImportError/AttributeError if none)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            found = getattr(found, part)
        return found
    raise ImportError(dotted)


def unbound(source: str) -> set[str]:
    """The names a code block reads but neither imports, defines nor assigns."""
    tree = ast.parse(source)
    bound = set(GIVEN) | set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef):
            bound |= {node.name, *(a.arg for a in node.args.args)}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - bound


def test_the_parallel_page_names_modules_that_exist():
    names = set(re.findall(r"spacy_span_eval(?:\.\w+)+", PARALLEL.read_text()))
    assert "spacy_span_eval.engine.rows.document_from_row" in names
    for name in sorted(names):
        resolve(name)


def test_the_parallel_page_examples_import_what_they_call():
    blocks = re.findall(r"```python\n(.*?)```", PARALLEL.read_text(), re.S)
    assert len(blocks) >= 4
    assert [unbound(block) for block in blocks] == [set()] * len(blocks)

"""The shape of the code (shared/DESIGN.md): no import circle anywhere, no module too long.

The import graph is read from the source with ``ast`` (nothing is imported): every
``import`` and ``from ... import`` of a cardtable module, relative ones resolved, at the
top of a module, under ``if TYPE_CHECKING:`` and inside functions alike, since a circle
that only the type checker or a late import walks is still a circle a reader must untangle.
An import points at the module it names: ``from .table import Table`` at the package's
``__init__`` (which counts, with the submodules it imports for re-export), ``from . import
moves`` at ``moves`` itself. Imports by name at run time (``importlib``) are not seen.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "cardtable"
MAX_LINES = 500  # a module longer than this does too much: split it by what it does


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The cardtable modules that module ``name`` (at ``path``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[:len(parts) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in known:  # a submodule, as in "from . import x"
                    yield f"{source}.{alias.name}"
                elif source in known:
                    yield source


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imported(name, path, known)) - {name} for name, path in known.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan's algorithm, without
    recursion: an import chain may be deeper than Python's stack allows)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = lowest[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = lowest[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    lowest[node] = min(lowest[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowest[parent] = min(lowest[parent], lowest[node])
            if lowest[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    found.append(sorted(members))
    return found


def test_the_circle_finder_finds_a_circle_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_back_through_others() -> None:
    graph = import_graph()
    assert "cardtable.server.table.actor" in graph  # the graph sees the whole package
    report = []
    for members in circles(graph):
        inside = set(members)
        report.append("circle: " + ", ".join(members))
        report += [f"    {a} -> {b}" for a in members for b in sorted(graph[a] & inside)]
    assert not report, "\n".join(report)


def test_no_module_is_longer_than_500_lines() -> None:
    too_long = {str(path.relative_to(SRC.parent)): lines
                for path in sorted(SRC.rglob("*.py"))
                if (lines := len(path.read_text().splitlines())) > MAX_LINES}
    assert not too_long, f"over {MAX_LINES} lines (split them by what they do): {too_long}"


# -- the browser's modules ------------------------------------------------------------------

WEB_GAMES = PACKAGE / "web" / "games"
SHARED_WEB = {"rummyfamily", "tablemelds"}  # folders several games' boards build on
JS_IMPORT = re.compile(r'^\s*(?:import|export)\s[^;]*?\bfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"',
                       re.M)


def js_imports(path: Path) -> Iterator[Path]:
    """The files a browser module imports statically (relative paths, resolved)."""
    for match in JS_IMPORT.finditer(path.read_text()):
        target = match.group(1) or match.group(2)
        if target.startswith("."):
            yield (path.parent / target).resolve()


def test_js_imports_are_read() -> None:
    """The reader above sees the imports of a known board (else the next test proves nothing)."""
    board = WEB_GAMES / "indian" / "board.js"
    assert WEB_GAMES / "indian" / "hand.js" in set(js_imports(board))
    assert WEB_GAMES / "board.js" in set(js_imports(board))


def test_a_games_web_folder_is_imported_by_that_game_only() -> None:
    """A game's board folder is its own: the shared pieces (``games/*.js``, the family
    folders) and other games never import from it, so a game can be added or removed
    by its folder (docs/adding-a-game.md)."""
    problems = []
    for path in sorted(WEB_GAMES.rglob("*.js")):
        home = path.relative_to(WEB_GAMES).parts
        own = home[0] if len(home) > 1 else None
        for target in js_imports(path):
            if not target.is_relative_to(WEB_GAMES):
                continue
            parts = target.relative_to(WEB_GAMES).parts
            folder = parts[0] if len(parts) > 1 else None
            if folder is not None and folder not in SHARED_WEB and folder != own:
                problems.append(f"{path.relative_to(WEB_GAMES)} imports "
                                f"{target.relative_to(WEB_GAMES)}")
    assert not problems, problems

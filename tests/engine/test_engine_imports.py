"""No import cycles in the engine.

Every module under ``src/cardtable/engine`` is read as source (nothing is imported)
and each ``import`` it writes is an edge: at the top, inside a function, or under
``if TYPE_CHECKING:`` alike, since each of these still ties the two modules
together.  A cycle in that graph fails the test, naming the modules in order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cardtable.engine

ENGINE = Path(cardtable.engine.__file__).parent
PACKAGE = "cardtable.engine"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The engine modules that ``name`` (at ``path``) imports, wherever it imports them."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # ``from . import views`` imports the module views; ``from .views import
            # view`` the module .views
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
    return {m for m in found if m in known and m != name}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path that ends where it starts, or ``None``."""
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node):], node]
        if node in done:
            return None
        path.append(node)
        for nxt in sorted(graph[node]):
            cycle = walk(nxt, path)
            if cycle:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = walk(start, [])
        if cycle:
            return cycle
    return None


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def test_the_graph_is_read() -> None:
    graph = import_graph()
    assert "cardtable.engine.state" in graph["cardtable.engine.games.gin.match"]
    assert "cardtable.engine.games.spades.match" in graph["cardtable.engine.games.spades.views"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles_in_the_engine() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])

"""The engine is pure rules: no I/O, no asyncio, no server, database or web imports."""

from __future__ import annotations

import ast
from pathlib import Path

import cardtable.engine

ENGINE = Path(cardtable.engine.__file__).parent
FORBIDDEN = {"asyncio", "socket", "os", "sys", "subprocess", "threading", "sqlite3", "io",
             "pathlib", "shutil", "tempfile", "http", "urllib", "json", "logging", "time",
             "secrets", "sqlalchemy", "fastapi", "starlette", "uvicorn", "redis", "pydantic",
             "rich", "cardtable.server", "cardtable.store", "cardtable.cluster",
             "cardtable.bots", "cardtable.cli", "cardtable.client"}
FORBIDDEN_CALLS = {"open", "print", "input", "eval", "exec"}


def engine_modules() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


def test_engine_imports_nothing_impure() -> None:
    offenders = []
    for path in engine_modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN):
                    offenders.append(f"{path.name}: import {name}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in FORBIDDEN_CALLS):
                offenders.append(f"{path.name}:{node.lineno}: {node.func.id}()")
    assert not offenders, offenders


def test_engine_modules_stay_small() -> None:
    too_long = {p.name: n for p in engine_modules() if (n := len(p.read_text().splitlines())) > 520}
    assert not too_long, too_long

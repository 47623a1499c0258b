"""The README: its engine example runs and prints what its comments say, and its first two
commands work where a newcomer types them (issue 14): they make and use a virtual
environment, since a stock Debian or Ubuntu Python refuses ``pip install`` outside one."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VENV = "python3 -m venv .venv && . .venv/bin/activate && "
# How .ci/run finds the test command it runs (keep in step with .ci/run).
CI_GREP = re.compile(r"^python3 -m venv \.venv && .*python3 -m pytest", re.M)


def first_commands() -> list[str]:
    """The lines of the README's first code block, comments dropped."""
    block = README.read_text().split("```")[1]
    return [line.split("  #")[0].strip() for line in block.splitlines()[1:] if line.strip()]


def test_readme_example_runs() -> None:
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert code is not None
    result = subprocess.run([sys.executable, "-c", code.group(1)], capture_output=True,
                            text=True, check=True, timeout=600)
    lines = result.stdout.splitlines()
    assert lines[1:] == ["14", "knock knocker 7"]


def test_readme_opens_with_the_two_commands() -> None:
    head = README.read_text().split("```")[1]
    assert "cardtable serve" in head and "pytest" in head


def test_both_commands_make_and_use_a_virtual_environment() -> None:
    serve, tests = first_commands()
    assert serve == VENV + "python3 -m pip install -e . && cardtable serve"
    assert tests == VENV + "python3 -m pip install -e '.[dev]' && python3 -m pytest -n auto"


def test_the_virtual_environment_steps_work_in_a_plain_shell(tmp_path: Path) -> None:
    """The steps before ``pip install``, run by ``sh`` (no bash-isms): afterwards
    ``python3`` is the new environment's own, where pip installs without complaint."""
    steps = first_commands()[0].split("python3 -m pip")[0]
    probe = "python3 -c 'import sys; print(sys.prefix != sys.base_prefix, sys.prefix)'"
    result = subprocess.run(["sh", "-c", steps + probe], cwd=tmp_path, capture_output=True,
                            text=True, check=True, timeout=300)
    inside, prefix = result.stdout.split()
    assert inside == "True" and Path(prefix) == tmp_path / ".venv"
    assert (tmp_path / ".venv" / "bin" / "pip").exists(), "the environment has its own pip"


def test_the_readme_names_the_python_version_the_package_requires() -> None:
    required = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    version = required.removeprefix(">=")
    assert f"Python {version} or newer" in README.read_text()


def test_ci_runs_the_readmes_own_test_command() -> None:
    """.ci/run greps the README for its test command: it finds the second line at the top,
    the one a newcomer types, whole."""
    found = CI_GREP.search(README.read_text())
    assert found is not None
    line = found.group(0) + README.read_text()[found.end():].split("\n")[0]
    assert line.split("  #")[0].strip() == first_commands()[1]
    assert shlex.split(line.split("  #")[0])[-5:] == ["python3", "-m", "pytest", "-n", "auto"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "grep -m1 -E '^python3 -m venv \\.venv && .*python3 -m pytest' README.md" in ci

"""The README's engine example runs and prints what its comments say."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


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

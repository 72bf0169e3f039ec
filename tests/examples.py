"""Every rule's INVALID examples and every fixture's before.py, as pytest parameters (code, source): the
sources the message tests (tests/rules/test_messages_say_what_to_write.py, test_message_length.py) lint."""
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def invalid_sources():
    from hylint.selection import all_rules

    for code, rule in sorted(all_rules().items()):
        for index, example in enumerate(rule.INVALID):
            yield pytest.param(code, example.code, id=f"{code}-INVALID-{index}")
    for folder in sorted(FIXTURES.iterdir()):
        if (folder / "before.py").exists():
            yield pytest.param(folder.name.split("_")[0], (folder / "before.py").read_text(), id=folder.name)

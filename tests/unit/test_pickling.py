"""The rules' frozen dataclasses pickle by their constructor once the expert is
imported. Compiled with mypyc, a frozen dataclass unpickles by assigning its
fields, which it refuses: a compiled install could not send a search to the
expert's pool. CI's compiled-build check (tools/check_compiled.py) sends some;
this keeps every such class registered."""

from __future__ import annotations

import ast
import copyreg
import importlib
import pickle
from pathlib import Path

import clients.expert  # noqa: F401  (registers them)
from clients.pickling import frozen_dataclass
from service.rules import rule_set
from service.rules.commands import Play
from service.rules.state import initial_state

ROOT = Path(__file__).resolve().parents[2]


def compiled_modules() -> list[str]:
    """The modules hatch_build.py compiles, read from its ``COMPILED``."""
    tree = ast.parse((ROOT / "hatch_build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            paths = eval(compile(ast.Expression(node.value), "hatch_build.py", "eval"))
            return [path.removesuffix(".py").replace("/", ".") for path in paths]
    raise AssertionError("hatch_build.py has no COMPILED")


def test_every_frozen_dataclass_of_the_compiled_rules_pickles_by_its_constructor() -> None:
    found = []
    for name in compiled_modules():
        if not name.startswith("service.rules."):
            continue  # the bots' policies: nothing of theirs crosses processes
        module = importlib.import_module(name)
        for value in vars(module).values():
            if frozen_dataclass(value) and value.__module__ == name:
                found.append(value)
                assert value in copyreg.dispatch_table, f"{name}.{value.__name__}"
    assert len(found) > 30


def test_a_rule_set_a_command_and_a_state_come_back_equal() -> None:
    rules = rule_set("uecda", {"games_per_set": 3})
    state = initial_state(rules, 5)
    play = Play(2, 0b1011, (), "a reason")
    for value in (rules, play):
        assert pickle.loads(pickle.dumps(value)) == value
    assert pickle.loads(pickle.dumps(state)).rules == rules

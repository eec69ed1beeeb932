"""The frozen dataclasses a playout builds at every step write their ``__init__`` out
(``init=False``): mypyc compiles a written one, while the one ``dataclass`` makes is
run interpreted, tens of times slower. These tests hold each written ``__init__``
to its class's fields, as the generated one would be: the same parameters in the
same order, with the same defaults, each stored in its own field."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from types import ModuleType

import pytest

# the modules hatch_build.py compiles
COMPILED = [
    *(
        f"service.rules.{name}"
        for name in (
            "cards", "commands", "dealing", "decider", "events", "evolve", "judging",
            "legal", "melds", "memo", "readings", "refusals", "rulesets", "state", "vocabulary",
        )
    ),
    "clients.policies", "clients.playouts", "clients.strategy",
]  # fmt: skip


def written_inits() -> list[type]:
    found = []
    for name in COMPILED:
        module: ModuleType = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == name
                and dataclasses.is_dataclass(value)
                and not value.__dataclass_params__.init  # type: ignore[attr-defined]
            ):
                found.append(value)
    return found


WRITTEN = written_inits()


def test_the_classes_a_playout_builds_each_step_write_their_init() -> None:
    names = {cls.__name__ for cls in WRITTEN}
    assert {"Meld", "Effects", "Plan", "CardsPlayed", "Passed", "TurnMoved", "Folded"} <= names


@pytest.mark.parametrize("cls", WRITTEN, ids=lambda cls: cls.__name__)
def test_a_written_init_takes_the_fields_in_order_with_their_defaults(cls: type) -> None:
    parameters = list(inspect.signature(cls).parameters.values())
    fields = dataclasses.fields(cls)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        assert parameter.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert parameter.annotation == field.type, field.name
        expected = (
            inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        )
        assert parameter.default == expected, field.name


@pytest.mark.parametrize("cls", WRITTEN, ids=lambda cls: cls.__name__)
def test_a_written_init_stores_each_argument_in_its_own_field(cls: type) -> None:
    fields = dataclasses.fields(cls)
    markers = [object() for _ in fields]  # every field a different value
    made = cls(*markers)
    assert [getattr(made, f.name) for f in fields] == markers
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, fields[0].name, None)

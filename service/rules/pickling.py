"""The rules' frozen dataclasses pickle by their constructor.

mypyc compiles a frozen dataclass into a native class whose unpickling sets each
field with ``setattr``, which the frozen class refuses: a compiled install could
not send a command, a rule set or a position to another process (the expert's
pool) or copy one. Pickled as a call of the class with its fields, they load the
same, compiled or pure."""

from __future__ import annotations

import copyreg
import dataclasses
from types import ModuleType
from typing import Any


def by_constructor(*modules: ModuleType) -> None:
    """Pickle (and copy) every frozen dataclass defined in ``modules`` by its constructor."""
    for module in modules:
        for value in vars(module).values():
            if frozen_dataclass(value) and value.__module__ == module.__name__:
                copyreg.pickle(value, _constructed)


def frozen_dataclass(value: object) -> bool:
    return (
        isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__dataclass_params__.frozen  # type: ignore[attr-defined]
    )


def _constructed(instance: Any) -> tuple[type, tuple[Any, ...]]:
    cls = type(instance)
    return cls, tuple(getattr(instance, field.name) for field in dataclasses.fields(cls))

"""The rules' frozen dataclasses pickle by their constructor.

mypyc compiles a frozen dataclass into a native class whose unpickling sets each
field with ``setattr``, which the frozen class refuses: a compiled install could
not send a command, a rule set or a position to the expert's pool, nor take its
answer back. Pickled as a call of the class with their fields, they load the
same, compiled or pure. Registered by the expert's module, which every process
of the pool imports (the rules themselves keep no process-wide state)."""

from __future__ import annotations

import copyreg
import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType


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

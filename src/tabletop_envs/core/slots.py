"""The slots of a state class: the attributes a copy moves, and a generated function moving them.

:meth:`~tabletop_envs.core.game.GameState.clone` and unpickling read them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Slots:
    """The instance attributes a state class declares in ``__slots__`` along its MRO, and a
    function copying them all from one instance to another.

    The function is generated (as ``dataclasses`` generates ``__init__``): one plain
    ``new.x = old.x`` per slot runs several times faster than a ``setattr`` loop, and copying
    is most of a clone's cost.
    """

    def __init__(self, cls: type) -> None:
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name.startswith("__") and not name.endswith("__"):  # a private name
                    name = f"_{klass.__name__.lstrip('_')}{name}"
                if name not in ("__dict__", "__weakref__") and name not in names:
                    names.append(name)
        self.names = tuple(names)
        body = "".join(f"    new.{name} = old.{name}\n" for name in names) or "    pass\n"
        namespace: dict[str, Any] = {}
        exec(f"def copy(old, new):\n{body}", namespace)  # names from __slots__
        self.copy: Callable[[Any, Any], None] = namespace["copy"]


#: Per state class, its slots (filled on the class's first copy).
SLOTS: dict[type, Slots] = {}

"""Run configurations declared once: typed fields with a default, bounds and help.

A configuration is a dataclass deriving from :class:`Config` whose fields are made with
:func:`setting`. From that one declaration come the checks (every field is checked when the
object is built or replaced; a wrong value raises :class:`InvalidParameterError` naming the
field and what is valid), the command line (:func:`add_options` adds one option per field,
with its type, bounds, choices, default and help) and the reading back of parsed options
(:func:`from_namespace`). ``Config.from_dict`` refuses unknown keys, as pydantic's
``extra="forbid"`` does.

Field types understood: ``int``, ``float``, ``bool``, ``str``, ``tuple[T, ...]`` of those,
``dict[str, Any]`` (game parameters, given on the command line as repeated
``--param KEY=VALUE``) and ``X | None`` of any of them.

:func:`parse_value` and :func:`parse_assignment` are the project's one reader of ``key=value``
text (game parameters, agent spec options, command lines).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import math
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, NoReturn, TypeVar

import numpy as np

from tabletop_envs.core.errors import InvalidParameterError

C = TypeVar("C", bound="Config")

#: Longest piece of a user's input quoted back in an error message.
QUOTE_LIMIT = 80
#: Longest path quoted back whole in an error message (:func:`quote_path`).
PATH_QUOTE_LIMIT = 500


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """Return ``repr(value)``, cut to ``limit`` characters (an error never echoes 20 MB)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int past Python's digit limit, deep nesting
        size = f"{value.bit_length()} bits" if isinstance(value, int) else "too deep to print"
        text = f"<{type(value).__name__}: {size}>"
    return cut(text, limit)


def quote_path(path: str | os.PathLike[str]) -> str:
    """Return ``repr(str(path))``, cut only past :data:`PATH_QUOTE_LIMIT`: a path in an error is
    of use only whole, and real ones are longer than :data:`QUOTE_LIMIT` (a temporary folder's)."""
    return quote(str(path), PATH_QUOTE_LIMIT)


def cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Return ``text`` cut to about ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[: limit - 3]}... ({len(text)} characters)"


# ---- key=value text -------------------------------------------------------------------------
def parse_value(text: str) -> Any:
    """Read one value of ``key=value`` text.

    ``true``/``false`` (any case) are bools, ``none``/``null`` (any case) None; then a JSON or
    Python literal (``3``, ``1.5``, ``"a"``, ``[1, 2]``, ``(1, 2)``, ``{"a": 1}``), lists read as
    tuples (game parameters are hashable); anything else, or a value nesting deeper than
    :data:`MAX_DEPTH`, is the text itself.
    """
    raw = text.strip()
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        value = json.loads(raw)
    except RecursionError:
        return raw
    except ValueError:
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return raw
    return raw if too_deep(value, MAX_DEPTH) else as_tuples(value)


#: Deepest nesting of lists, tuples and dicts read from user text.
MAX_DEPTH = 32


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Return whether lists, tuples and dicts in ``value`` nest deeper than ``limit``.

    Iterative, so a hostile value cannot exhaust the stack while it is measured.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def as_tuples(value: Any) -> Any:
    """Return ``value`` with its lists (JSON arrays) turned into tuples, at every depth, dict
    values included: parameter dataclasses hold tuples."""
    if isinstance(value, (list, tuple)):
        return tuple(as_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: as_tuples(v) for k, v in value.items()}
    return value


def parse_assignment(text: str) -> tuple[str, Any]:
    """Split ``key=value`` into the key and its :func:`parse_value`; ValueError otherwise."""
    key, eq, raw = text.partition("=")
    if not eq or not key.strip():
        raise ValueError(f"expected key=value, got {quote(text)}")
    return key.strip(), parse_value(raw)


def param_option(text: str) -> tuple[str, Any]:
    """argparse type of ``--param KEY=VALUE`` (:func:`parse_assignment`, its error worded for
    the command line)."""
    try:
        return parse_assignment(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"a parameter is KEY=VALUE: {error}") from None


# ---- declaring a setting --------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Setting:
    """What :func:`setting` records about a field (its metadata)."""

    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None
    flags: tuple[str, ...] = ()
    metavar: str | None = None
    cli: bool = True
    check: Callable[[Any], str | None] | None = None
    repeat: bool = False


def setting(
    default: Any = dataclasses.MISSING,
    *,
    help: str,
    low: float | None = None,
    high: float | None = None,
    choices: Iterable[Any] | None = None,
    flags: Sequence[str] = (),
    metavar: str | None = None,
    cli: bool = True,
    check: Callable[[Any], str | None] | None = None,
    repeat: bool = False,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """Declare a field of a :class:`Config`: its default, bounds, choices and help.

    ``low``/``high`` bound numbers (each item of a tuple); ``choices`` lists the valid values;
    ``flags`` are the command-line spellings (default ``--field-name``); ``cli=False`` keeps
    the field off the command line; ``check(value)`` returns a problem text or None;
    ``repeat=True`` makes a tuple's option take one value and repeat (``--env a --env b``).
    """
    meta = Setting(
        help=help,
        low=low,
        high=high,
        choices=None if choices is None else tuple(choices),
        flags=tuple(flags),
        metavar=metavar,
        cli=cli,
        check=check,
        repeat=repeat,
    )
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata={"setting": meta})
    return dataclasses.field(default=default, metadata={"setting": meta})


# ---- checking -------------------------------------------------------------------------------
def _optional(kind: Any) -> tuple[Any, bool]:
    """Return ``(the type without None, whether None is allowed)``."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return kind, False


def _valid_text(kind: Any, meta: Setting) -> str:
    """Describe the valid values of a field, for error messages and help."""
    if meta.choices is not None:
        return "one of " + ", ".join(repr(c) for c in meta.choices)
    name = {int: "an integer", float: "a number", bool: "True or False", str: "a string"}.get(
        kind, getattr(kind, "__name__", str(kind))
    )
    low, high = _bound_text(meta.low), _bound_text(meta.high)
    if low and high:
        return f"{name} from {low} to {high}"
    if low:
        return f"{name} >= {low}"
    if high:
        return f"{name} <= {high}"
    return name


def _bound_text(bound: float | None) -> str:
    """Return a bound as text: an int whole (``4294967295``, not ``4.29497e+09``), else ``:g``."""
    if bound is None:
        return ""
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


def _check_scalar(name: str, value: Any, kind: Any, meta: Setting) -> Any:
    """Return ``value`` converted to ``kind`` (int, float, bool or str), checked."""
    bad = InvalidParameterError(f"{name} must be {_valid_text(kind, meta)}, got {quote(value)}")
    if kind is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise bad
        value = bool(value)
    elif kind is int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise bad
        value = int(value)
    elif kind is float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise bad
        value = float(value)
        if not math.isfinite(value):
            raise bad
    elif kind is str and not isinstance(value, str):
        raise bad
    if meta.choices is not None and value not in meta.choices:
        raise bad
    if kind in (int, float) and (
        (meta.low is not None and value < meta.low) or (meta.high is not None and value > meta.high)
    ):
        raise bad
    return value


def check_field(name: str, value: Any, kind: Any, meta: Setting) -> Any:
    """Return ``value`` checked against the field's type and setting (converted where safe)."""
    kind, optional = _optional(kind)
    if value is None:
        if optional:
            return None
        raise InvalidParameterError(f"{name} must be {_valid_text(kind, meta)}, got None")
    origin = typing.get_origin(kind)
    if origin is tuple:
        item = typing.get_args(kind)[0]
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            raise InvalidParameterError(
                f"{name} must be a list of {_valid_text(item, meta)}, got {quote(value)}"
            )
        items = tuple(value)
        checked = tuple(_check_scalar(f"{name}[{i}]", v, item, meta) for i, v in enumerate(items))
        out: Any = checked
    elif origin is dict or kind is dict:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise InvalidParameterError(
                f"{name} must be a mapping of names to values, got {quote(value)}"
            )
        out = dict(value)
    else:
        out = _check_scalar(name, value, kind, meta)
    if meta.check is not None:
        problem = meta.check(out)
        if problem:  # mostly a path's check: its value is quoted whole, as quote_path does
            raise InvalidParameterError(f"{name} {problem}, got {quote(value, PATH_QUOTE_LIMIT)}")
    return out


_HINTS: dict[type, dict[str, Any]] = {}


def setting_types(cls: type) -> dict[str, Any]:
    """Return the evaluated annotations of the :func:`setting` fields of ``cls`` (by name).

    Only those: ``typing.get_type_hints`` would evaluate every annotation, and on Python 3.10 it
    refuses a dataclass ``InitVar[...]`` one (``AZConfig`` has such, for old spellings).
    """
    hints = _HINTS.get(cls)
    if hints is None:
        wanted = {f.name for f, _meta in settings_of(cls)}
        hints = {}
        for klass in reversed(cls.__mro__):  # a subclass's annotation wins
            module = sys.modules.get(klass.__module__)
            namespace = dict(vars(module)) if module is not None else {}
            for name, kind in vars(klass).get("__annotations__", {}).items():
                if name in wanted:
                    hints[name] = (
                        eval(kind, namespace, dict(vars(klass))) if isinstance(kind, str) else kind
                    )
        _HINTS[cls] = hints
    return hints


def settings_of(cls: type[Config] | Config) -> list[tuple[dataclasses.Field[Any], Setting]]:
    """Return the fields declared with :func:`setting`, with their settings, in order."""
    found = dataclasses.fields(cls)  # type: ignore[arg-type]
    return [(f, f.metadata["setting"]) for f in found if "setting" in f.metadata]


class Config:
    """Base of run configurations: every :func:`setting` field checked on construction.

    Subclasses are dataclasses; ``check()`` may add checks across fields (raise
    :class:`InvalidParameterError` naming them).
    """

    #: Shown as the command line's description.
    about: ClassVar[str] = ""

    def __post_init__(self) -> None:
        hints = setting_types(type(self))
        for f, meta in settings_of(self):
            value = check_field(f.name, getattr(self, f.name), hints[f.name], meta)
            object.__setattr__(self, f.name, value)
        self.check()

    def check(self) -> None:
        """Checks across fields; the default has none."""

    @classmethod
    def from_dict(cls: type[C], data: Mapping[str, Any]) -> C:
        """Build from a mapping of field names (unknown keys are refused, naming them)."""
        if not isinstance(data, Mapping):
            raise InvalidParameterError(f"a {cls.__name__} is a mapping, got {quote(data)}")
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(str(k) for k in data if k not in names)
        if unknown:
            raise InvalidParameterError(
                f"unknown {cls.__name__} field(s) {', '.join(quote(k) for k in unknown)}; "
                f"fields: {', '.join(sorted(names))}"
            )
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as JSON-ready values (tuples as lists)."""
        return {
            f.name: _plain(getattr(self, f.name))
            for f in dataclasses.fields(self)  # type: ignore[arg-type]
        }

    def replace(self: C, **changes: Any) -> C:
        """Return a copy with ``changes`` applied (checked again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# ---- the command line -----------------------------------------------------------------------
#: Longest error message a command prints (messages quote at most a short prefix of input).
MESSAGE_LIMIT = 2000


def one_line(message: object, limit: int = MESSAGE_LIMIT) -> str:
    """Return ``str(message)`` on one line (each run of whitespace one space), cut to ``limit``."""
    return cut(" ".join(str(message).split()), limit)


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Append "(default: X)" to an option's help unless it names its default already.

    Flags (``store_true``) and options without a default (``None``, empty) get nothing added.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            "default" in text
            or action.default in (None, argparse.SUPPRESS, [], ())
            or action.nargs == 0
            or not action.option_strings
        ):
            return action.help
        return text + " (default: %(default)s)"


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose help shows the defaults and whose errors are one line.

    A mistake prints ``PROG: error: MESSAGE (see PROG --help)`` and exits with status 2, the
    usage block left to ``--help``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: error: MESSAGE`` on one line and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def flags_of(f: dataclasses.Field[Any], meta: Setting) -> tuple[str, ...]:
    """Return the command-line spellings of a field (``--field-name`` unless declared)."""
    return meta.flags or ("--" + f.name.replace("_", "-"),)


def _argparse_type(kind: Any) -> Callable[[str], Any]:
    if kind is bool:
        return parse_value
    if kind in (int, float):

        def number(text: str) -> Any:
            try:
                return kind(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"expected {'an integer' if kind is int else 'a number'}, got {quote(text)}"
                ) from None

        return number

    def text_or_none(text: str) -> Any:
        return None if text.strip().lower() in ("none", "null") else text

    return text_or_none


def option_kwargs(
    f: dataclasses.Field[Any], meta: Setting, kind: Any, default: Any, required: bool = False
) -> dict[str, Any]:
    """Return the ``add_argument`` keywords of a field (``required``: no default to show)."""
    kind, optional = _optional(kind)
    origin = typing.get_origin(kind)
    show = _plain(default)
    item = typing.get_args(kind)[0] if origin is tuple else kind
    extra = "" if meta.choices is not None or item in (str, dict) else _valid_text(item, meta)
    help_text = meta.help
    if extra and (meta.low is not None or meta.high is not None):
        help_text += f"; {extra}"
    kwargs: dict[str, Any] = {"dest": f.name, "default": default, "metavar": meta.metavar}
    if kind is bool and not optional:
        kwargs.update(action=argparse.BooleanOptionalAction, metavar=None)
        help_text += f" (default: {'on' if default else 'off'})"
    elif origin is dict or kind is dict:
        kwargs.update(action="append", type=param_option, metavar=meta.metavar or "KEY=VALUE")
        kwargs["default"] = None
    elif origin is tuple:
        item = typing.get_args(kind)[0]
        if meta.repeat:  # None when not given: from_namespace keeps the field's default
            kwargs.update(action="append", type=_argparse_type(item), default=None)
            help_text += "; repeat"
        else:
            kwargs.update(nargs="+" if not optional else "*", type=_argparse_type(item))
        kwargs["choices"] = meta.choices
        if not required:
            help_text += f" (default: {' '.join(map(str, show)) if show else 'none'})"
    else:
        kwargs.update(type=_argparse_type(kind), choices=meta.choices)
        if default is not None and default != "":
            help_text += f" (default: {show})"
    if required:
        kwargs["required"] = True
    kwargs["help"] = help_text.replace("%", "%%")
    return {k: v for k, v in kwargs.items() if v is not None or k == "default"}


def add_options(
    parser: argparse.ArgumentParser | Any,
    cls: type[Config],
    *,
    skip: Iterable[str] = (),
    defaults: Mapping[str, Any] | None = None,
) -> None:
    """Add one command-line option per :func:`setting` field of ``cls`` to ``parser``.

    ``skip`` names fields left off; ``defaults`` overrides a field's default on this command. A
    field declared without a default is a required option.
    """
    skipped = set(skip)
    hints = setting_types(cls)
    for f, meta in settings_of(cls):
        if not meta.cli or f.name in skipped:
            continue
        default = (defaults or {}).get(f.name, _default_of(f))
        required = _required(f) and f.name not in (defaults or {})  # declared without one
        kwargs = option_kwargs(f, meta, hints[f.name], default, required)
        parser.add_argument(*flags_of(f, meta), **kwargs)


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def options_named(cls: type[Config], message: str) -> str:
    """Return ``message`` with the fields of ``cls`` it names spelt as their options.

    A config's errors name its fields (``eval_games must be ...``), right for Python callers; a
    command line's user typed ``--eval-games``. The leading word is replaced when it is a field,
    and so is every other field name with an underscore (a word no sentence uses otherwise)
    that is not quoted or part of a path.
    """
    flags = {f.name: flags_of(f, meta)[0] for f, meta in settings_of(cls)}
    lead = re.match(r"(\w+)\b", message)
    if lead and lead.group(1) in flags:
        message = flags[lead.group(1)] + message[lead.end() :]

    def option(match: re.Match[str]) -> str:
        return flags.get(match.group(0), match.group(0))

    return re.sub(r"(?<![\w'\"./-])[a-z]+(?:_[a-z0-9]+)+\b(?![\w'\"/])", option, message)


def from_args(cls: type[C], args: argparse.Namespace, **overrides: Any) -> C:
    """Build ``cls`` from parsed options as :func:`from_namespace` does, for a command line: a
    bad value's :class:`InvalidParameterError` names the options (``--games``), not the fields."""
    try:
        return from_namespace(cls, args, **overrides)
    except InvalidParameterError as err:
        raise InvalidParameterError(options_named(cls, str(err))) from None


def parse_command(
    cls: type[C], argv: Sequence[str] | None, *, prog: str | None, description: str
) -> tuple[C, CommandParser]:
    """Return ``cls`` read from the command line ``argv`` by a parser made from its declaration,
    and that parser (for the checks a script adds: ``parser.error``). A bad value is one line
    ``PROG: error: ...`` naming the option, exit status 2, before anything runs."""
    parser = CommandParser(prog=prog, description=description)
    add_options(parser, cls)
    try:
        return from_args(cls, parser.parse_args(argv)), parser
    except ValueError as err:
        parser.error(str(err))


def from_namespace(cls: type[C], args: argparse.Namespace, **overrides: Any) -> C:
    """Build ``cls`` from parsed options (fields missing from ``args`` keep their defaults)."""
    hints = setting_types(cls)
    values: dict[str, Any] = {}
    for f, meta in settings_of(cls):
        if not hasattr(args, f.name) or (meta.repeat and getattr(args, f.name) is None):
            continue
        value = getattr(args, f.name)
        kind, _ = _optional(hints[f.name])
        if typing.get_origin(kind) is dict or kind is dict:
            value = dict(value or [])
        values[f.name] = value
    values.update(overrides)
    return cls(**values)

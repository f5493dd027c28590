"""Dataclasses to JSON and back, driven by their type hints.

The play state of a campaign (scene, conflict and turn order, pending reactions, open
rolls, compels) is made of the rules core's frozen dataclasses; it is stored as one JSON
document per campaign. This codec knows the shapes those use: dataclasses (nested, and
polymorphic ones such as a command, tagged with their class name), lists, tuples,
dicts/Mappings, frozensets, enums, datetimes, ``X | None`` and plain values.

A load shares no dict or list with the data it was loaded from (untyped parts, a bare
``dict``, ``list`` or ``Any``, are copied): the data is the campaign's stored document, which
``pbp.flow.commit.save_play`` compares the new dump with, so an in-place edit of a loaded value must
not change it too. The copy is of the play state as it is now, which does not grow with the
campaign's history (settled items and closed rolls are kept to a bounded number).
"""
from __future__ import annotations

import dataclasses
import enum
import types
import typing
from datetime import datetime
from functools import lru_cache

_TAG = "__type__"


def _subclasses(cls: type) -> dict[str, type]:
    found = {cls.__name__: cls}
    for sub in cls.__subclasses__():
        found.update(_subclasses(sub))
    return found


@lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, object]:
    return typing.get_type_hints(cls)


@lru_cache(maxsize=None)
def _names(cls: type) -> tuple[str, ...] | None:
    """A dataclass's field names (None for any other type): looked up once per class."""
    if not dataclasses.is_dataclass(cls):
        return None
    return tuple(f.name for f in dataclasses.fields(cls))


def dump(value) -> object:
    """A JSON-ready structure for ``value``."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    names = _names(kind)
    if names is not None:       # plain values inline: most fields are (a call each was a third of a dump)
        out = {name: v if type(v) in _PLAIN else dump(v) for name in names for v in (getattr(value, name),)}
        out[_TAG] = kind.__name__
        return out
    if kind is list or kind is tuple:
        return [v if type(v) in _PLAIN else dump(v) for v in value]
    if isinstance(value, typing.Mapping):
        return {str(k): v if type(v) in _PLAIN else dump(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted((dump(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    raise TypeError(f"cannot store {type(value).__name__}")


def _fresh(data):
    """``data`` (JSON: dicts, lists and plain values) with every dict and list copied."""
    kind = type(data)
    if kind is dict:
        return {k: v if type(v) in _PLAIN else _fresh(v) for k, v in data.items()}
    if kind is list:
        return [v if type(v) in _PLAIN else _fresh(v) for v in data]
    if isinstance(data, dict):
        return {k: _fresh(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_fresh(v) for v in data]
    return data


_PLAIN = frozenset((str, int, float, bool, type(None)))


def key_sorted(data):
    """``data`` (JSON: dicts, lists and plain values) as a JSON column gives it back: every
    dict's keys sorted (``sort_keys``), every dict and list copied."""
    kind = type(data)
    if kind is dict:
        return {k: v if type(v) in _PLAIN else key_sorted(v) for k, v in sorted(data.items())}
    if kind is list:
        return [v if type(v) in _PLAIN else key_sorted(v) for v in data]
    return data


def in_key_order(data) -> bool:
    """Whether :func:`load` of ``data`` (a :func:`dump`) makes the same maps, in the same
    order, as a load of it read back from a JSON column would: every dict that is not a
    dataclass's (those have their :data:`_TAG`; a dataclass is made by name) has its keys sorted."""
    kind = type(data)
    if kind is dict:
        if _TAG not in data:
            keys = list(data)
            if keys != sorted(keys):
                return False
        return all(type(v) in _PLAIN or in_key_order(v) for v in data.values())
    if kind is list:
        return all(type(v) in _PLAIN or in_key_order(v) for v in data)
    return True
_PLAIN_TYPES = frozenset((str, int, float, bool))


@lru_cache(maxsize=None)
def _shape(tp) -> tuple:
    return typing.get_origin(tp), typing.get_args(tp)


@lru_cache(maxsize=None)
def _init_fields(cls: type) -> tuple[tuple[str, object], ...]:
    """A dataclass's fields an instance is made with, and their types: once per class."""
    hints = _hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls) if f.init)


def reload(tp, value, data, before):
    """What :func:`load` would make of ``data`` (the :func:`dump` of ``value``) read back from a
    JSON column, which gives every dict's keys back sorted, reusing the parts of ``value``
    that are already so: ``before`` is the dump ``value`` was loaded from, and a part whose
    dump equals its part of ``before``, its maps in key order (:func:`in_key_order`), is
    ``value``'s own. A dataclass that changed is made anew of its fields, each reloaded the
    same way; anything else that changed is loaded from ``data`` with its keys sorted."""
    if before == data and in_key_order(data):
        return value
    if type(data) is dict and type(before) is dict and data.get(_TAG) is not None \
            and data[_TAG] == before.get(_TAG) == type(value).__name__ and _names(type(value)) is not None:
        cls = type(value)
        made = {}
        for name, hint in _init_fields(cls):
            if name in data:
                now, then = data[name], before.get(name, _MISSING)
                # a plain value or an empty list or map unchanged (most fields): the value's own, no call
                made[name] = getattr(value, name) if type(then) is type(now) and now == then \
                    and (type(now) in _PLAIN or not now) else reload(hint, getattr(value, name), now, then)
        return cls(**made)
    return load(tp, key_sorted(data))


_MISSING = object()


def load(tp, data):
    """The value of type ``tp`` that :func:`dump` turned into ``data``."""
    if data is None:
        return None
    if tp in _PLAIN_TYPES and type(data) is tp:
        return data
    try:
        origin, args = _shape(tp)
    except TypeError:       # an unhashable type expression: worked out each time
        origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return load(options[0], data)
        for option in options:  # e.g. Faces | None handled above; str | Enum: first that fits
            try:
                return load(option, data)
            except (TypeError, ValueError, KeyError):
                continue
        raise TypeError(f"no type of {tp} fits {data!r}")
    if tp is typing.Any or tp is object:
        return _fresh(data)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(data)
    if tp is datetime:
        return datetime.fromisoformat(data)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        tag = data.get(_TAG)
        cls = tp if tag is None or tag == tp.__name__ else _subclasses(tp).get(tag, tp)
        return cls(**{name: v if hint in _PLAIN_TYPES and type(v) is hint else load(hint, v)
                      for name, hint in _init_fields(cls) if name in data for v in (data[name],)})
    if origin in (list, typing.List) or tp is list:
        (item,) = args or (typing.Any,)
        return [load(item, v) for v in data]
    if origin in (tuple, typing.Tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(load(args[0], v) for v in data)
        if args:
            return tuple(load(a, v) for a, v in zip(args, data))
        return tuple(_fresh(v) for v in data)
    if origin in (frozenset, set):
        (item,) = args or (typing.Any,)
        return (frozenset if origin is frozenset else set)(load(item, v) for v in data)
    if origin in (dict, typing.Dict) or origin is typing.Mapping or origin is getattr(typing, "Mapping", None) \
            or (origin is not None and getattr(origin, "__name__", "") == "Mapping"):
        key, val = args or (str, typing.Any)
        return {load(key, k) if key is not str else k: load(val, v) for k, v in data.items()}
    if tp in (int, float, str, bool):
        return tp(data)
    return _fresh(data)

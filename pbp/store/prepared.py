"""Prepared statements for the few queries every message makes.

peewee builds a query's SQL anew each time it runs, which costs far more than SQLite
takes to execute it (about 0.3 ms against 0.05 ms here). The queries on a message's hot
path have a fixed shape, so their SQL is generated once per database, from the same
peewee expression, and later runs only bind parameters. Rows come back as dicts with the
fields' ``python_value`` conversions applied, like ``.dicts()``.
"""
from __future__ import annotations

from typing import Callable

from peewee import Model, PostgresqlDatabase

from pbp.store.models import db

_INT_SENTINEL = -7_391_000_000
_STR_SENTINEL = "\x00pbp-param-{}\x00"


class Select:
    """``Select(lambda campaign_id: Model.select().where(Model.campaign == campaign_id))``;
    call it with the real arguments (positional, ints or strings)."""

    def __init__(self, build: Callable[..., object]) -> None:
        self.build = build
        self._cache: dict[int, tuple] = {}

    def _prepare(self, args):
        sentinels = [(_INT_SENTINEL - i) if isinstance(a, int) else _STR_SENTINEL.format(i) for i, a in enumerate(args)]
        query = self.build(*sentinels)
        sql, params = query.sql()
        slots = [sentinels.index(p) if p in sentinels else None for p in params]
        converters = []
        for node in query._returning:
            field = getattr(node, "field", node) if not hasattr(node, "python_value") else node
            converters.append((getattr(field, "name", None) or getattr(node, "name", None),
                               getattr(field, "python_value", None)))
        return sql, params, slots, converters

    def __call__(self, *args) -> list[dict]:
        database = db.obj
        entry = self._cache.get(id(database))
        if entry is None or entry[0] is not database:   # an id is reused once its database is gone
            entry = self._cache[id(database)] = (database, *self._prepare(args))
        _, sql, params, slots, converters = entry
        bound = [args[s] if s is not None else p for s, p in zip(slots, params)]
        cursor = database.execute_sql(sql, bound)
        rows = []
        for row in cursor.fetchall():
            rows.append({name: (convert(value) if convert and value is not None else value)
                         for (name, convert), value in zip(converters, row)})
        return rows


class Insert:
    """A one-row INSERT of a model with a fixed set of fields; returns the new id."""

    def __init__(self, model: type[Model], fields: tuple[str, ...]) -> None:
        self.model = model
        self.fields = [model._meta.fields[name] for name in fields]
        self.names = tuple(fields)
        self._cache: dict[int, tuple] = {}

    def __call__(self, **values) -> int:
        database = db.obj
        cached = self._cache.get(id(database))
        sql = cached[1] if cached is not None and cached[0] is database else None
        if sql is None:
            columns = ", ".join(f'"{f.column_name}"' for f in self.fields)  # SQLite and PostgreSQL
            marks = ", ".join([database.param] * len(self.fields))
            sql = f'INSERT INTO "{self.model._meta.table_name}" ({columns}) VALUES ({marks})'
            if isinstance(database, PostgresqlDatabase):
                sql += ' RETURNING "id"'
            self._cache[id(database)] = (database, sql)
        params = []
        for f in self.fields:
            value = values[f.name] if f.name in values else f.default() if callable(f.default) else f.default
            params.append(f.db_value(value))
        cursor = database.execute_sql(sql, params)
        if isinstance(database, PostgresqlDatabase):
            return cursor.fetchone()[0]
        return cursor.lastrowid


class Dumped(str):
    """A value already in its column's stored form (a JSON document dumped once by its
    caller, who needed the text too): :class:`Update` writes it as it is."""


class Update:
    """A one-row UPDATE by id of a fixed set of a model's fields (``Update(m.Character,
    ("skills", ...))(row_id, skills=...)``): the SQL made once per database, as for
    :class:`Insert`. Returns the rows changed (0 or 1)."""

    def __init__(self, model: type[Model], fields: tuple[str, ...]) -> None:
        self.model = model
        self.fields = [model._meta.fields[name] for name in fields]
        self.names = tuple(fields)
        self._cache: dict[int, tuple] = {}

    def __call__(self, row_id: int, **values) -> int:
        database = db.obj
        cached = self._cache.get(id(database))
        sql = cached[1] if cached is not None and cached[0] is database else None
        if sql is None:
            sets = ", ".join(f'"{f.column_name}" = {database.param}' for f in self.fields)
            sql = f'UPDATE "{self.model._meta.table_name}" SET {sets} WHERE "id" = {database.param}'
            self._cache[id(database)] = (database, sql)
        params = [str(v) if type(v := values[f.name]) is Dumped else f.db_value(v) for f in self.fields]
        params.append(row_id)
        return database.execute_sql(sql, params).rowcount

"""Rows of a server's store read and written beside it, in whichever store it serves from:
the SQLite file of `DATABASE_PATH`, or the database of `DATABASE_URL` in the session's cluster
(store_mode.py) through psql. The tests' SQL is written once, with `?` for each value; on
PostgreSQL each value is written into the text as a literal (the tests' own values, never a
client's), and the rows come back as JSON, so numbers stay numbers."""

import json
import sqlite3
from urllib.parse import urlsplit

import store_mode


def rows(env: dict[str, str], sql: str, params: tuple = ()) -> list[dict]:
    """The rows of a SELECT, each a dict of its columns in order."""
    if "DATABASE_URL" in env:
        text = _psql(env, f"SELECT coalesce(json_agg(selected), '[]') FROM ({_literal_sql(sql, params)}) AS selected")
        return json.loads(text)
    with sqlite3.connect(env["DATABASE_PATH"], timeout=10) as db:
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute(sql, params)]


def value(env: dict[str, str], sql: str, params: tuple = ()):
    """The first column of the first row (None when there is no row)."""
    found = rows(env, sql, params)
    return next(iter(found[0].values())) if found else None


def execute(env: dict[str, str], sql: str, params: tuple = ()) -> int:
    """Runs an INSERT, UPDATE or DELETE; the number of rows it changed."""
    if "DATABASE_URL" in env:
        return int(_psql(env, f"WITH changed AS ({_literal_sql(sql, params)} RETURNING 1) SELECT count(*) FROM changed"))
    with sqlite3.connect(env["DATABASE_PATH"], timeout=10) as db:
        return db.execute(sql, params).rowcount


def _psql(env: dict[str, str], sql: str) -> str:
    database = urlsplit(env["DATABASE_URL"]).path.lstrip("/")
    return store_mode.DATABASES.start().psql(database, sql).strip()


def _literal_sql(sql: str, params: tuple) -> str:
    pieces = sql.split("?")
    assert len(pieces) == len(params) + 1, f"{len(params)} values for {len(pieces) - 1} placeholders: {sql}"
    text = pieces[0]
    for param, piece in zip(params, pieces[1:]):
        text += _literal(param) + piece
    return text


def _literal(param) -> str:
    if param is None:
        return "NULL"
    if isinstance(param, bool):
        return str(int(param))
    if isinstance(param, int):
        return str(param)
    if isinstance(param, bytes):
        return f"'\\x{param.hex()}'::bytea"
    return "'" + str(param).replace("'", "''") + "'"

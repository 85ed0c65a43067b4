"""Hand-written SQL for the reads every API request makes (building a QuerySet's SQL costs more
than running it), converted exactly as the ORM would; and the reconnect-once wrapper."""

from collections.abc import Sequence

from django.db import InterfaceError, OperationalError, connections
from django.db.models import Field, Model

# Bound server-side, psycopg prepares a statement after its fifth use on a connection (the ORM
# keeps client-side binding). Behind PgBouncer in transaction mode this needs PgBouncer 1.21+,
# which tracks prepared statements (docs/operations.md).
try:
    from psycopg import Cursor as ServerBindingCursor
except ImportError:  # SQLite-only installs
    ServerBindingCursor = None

DB = "default"


def reconnecting(read):
    """`read()`, the first query of a request, once more on a new connection if the kept one is
    dead (outside a transaction only): the check, instead of CONN_HEALTH_CHECKS' round trip."""
    connection = connections[DB]
    try:
        return read()
    except (OperationalError, InterfaceError):
        if connection.in_atomic_block:
            raise
        connection.close()
        return read()


def fetch_row(sql: str, params: Sequence, columns: "Columns") -> list | None:
    """The first row of `sql`, each column converted as the ORM converts its field (see
    Columns), or None when there is no row."""
    row = _run(sql, params, lambda cursor: cursor.fetchone())
    return None if row is None else columns.convert(row)


def fetch_rows(sql: str, params: Sequence, columns: "Columns | None") -> list:
    """Every row of `sql`, converted as in fetch_row (as the driver gives them when
    `columns` is None: the caller converts the parts it uses)."""
    rows = _run(sql, params, lambda cursor: cursor.fetchall())
    return rows if columns is None else [columns.convert(row) for row in rows]


def _run(sql: str, params: Sequence, fetch):
    """`fetch(cursor)` after executing `sql`, on PostgreSQL on the server-binding cursor; through
    Django's cursor wrapper while queries are counted, logged or wrapped, so those see it too."""
    connection = connections[DB]
    if connection.vendor != "postgresql" or ServerBindingCursor is None:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return fetch(cursor)
    cursor = _server_cursor(connection)
    if connection.queries_logged or connection.execute_wrappers:
        wrapped = (
            connection.make_debug_cursor(cursor)
            if connection.queries_logged
            else connection.make_cursor(cursor)
        )
        wrapped.execute(sql, params)
        return fetch(wrapped)
    connection.validate_no_broken_transaction()
    with connection.wrap_database_errors:
        cursor.execute(sql, params)
        return fetch(cursor)


def _server_cursor(connection):
    """The connection's server-binding cursor, made once per database connection (and per
    time zone, which its timestamps are read in, as Django's own cursors)."""
    connection.ensure_connection()
    connection.validate_thread_sharing()
    kept = getattr(connection, "_archsvc_cursor", None)
    if kept is not None and kept[0] is connection.connection and kept[1] == connection.timezone:
        return kept[2]
    with connection.wrap_database_errors:
        cursor = ServerBindingCursor(connection.connection)
    _load_timestamps(connection, cursor)
    connection._archsvc_cursor = (connection.connection, connection.timezone, cursor)
    return cursor


def _load_timestamps(connection, cursor) -> None:
    """Timestamps as Django's own cursors read them (aware, in the connection's zone): in UTC,
    by psycopg's faster compiled loader, which gives exactly that; else by Django's."""
    from django.db.backends.postgresql.base import TIMESTAMPTZ_OID
    from django.db.backends.postgresql.psycopg_any import register_tzloader
    from psycopg import adapters
    from psycopg.pq import Format

    if connection.timezone_name == "UTC":
        cursor.adapters.register_loader(
            TIMESTAMPTZ_OID, adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
        )
        return
    loader = connection.connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
    if connection.timezone != loader.timezone:
        register_tzloader(connection.timezone, cursor)


def icontains(column: str, value: str) -> tuple[str, str]:
    """A condition and its parameter: `column` contains `value` in any case, as Django writes
    `__icontains` (on SQLite, whose LIKE folds ASCII only, both sides casefolded by Python)."""
    connection = connections[DB]
    pattern = f"%{connection.ops.prep_for_like_query(value)}%"
    if connection.vendor == "sqlite":
        return f"{CASEFOLD}({column}) LIKE {CASEFOLD}(%s) ESCAPE '\\'", pattern
    lhs = connection.ops.lookup_cast("icontains", "CharField") % column
    rhs = connection.operators["icontains"] % "%s"
    return f"{lhs} {rhs}", pattern


CASEFOLD = "archsvc_casefold"


def sqlite_casefold(sender, connection, **kwargs) -> None:
    """connection_created (DiagramsConfig.ready): Python's case folding as an SQL function
    on every SQLite connection, for `icontains`."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(
            CASEFOLD,
            1,
            lambda text: None if text is None else str(text).casefold(),
            deterministic=True,
        )


def build(model: type[Model], fields: Sequence[Field], values: Sequence) -> Model:
    """An instance of `model` as loaded from the database; fields left out are deferred."""
    return model.from_db(DB, [field.attname for field in fields], list(values))


def param(model: type[Model], field_name: str, value):
    """`value` as the database takes a parameter compared with `model.field_name`."""
    return model._meta.get_field(field_name).get_db_prep_value(value, connections[DB])


def select_list(alias: str, fields: Sequence[Field]) -> str:
    return ", ".join(f'{alias}."{field.column}"' for field in fields)


class Columns:
    """The columns of a hand-written statement, in order: the model field each is read as (None:
    as the driver gives it); made once per statement, converters worked out on first use."""

    def __init__(self, fields: Sequence[Field | None]) -> None:
        self.fields = tuple(fields)
        self._plan: list | None = None

    def convert(self, row: Sequence) -> list:
        plan = self._plan
        if plan is None:
            plan = self._plan = self._make_plan()
        values = list(row)
        if len(values) != len(self.fields):
            raise ValueError(f"{len(values)} columns for {len(self.fields)} fields")
        if plan:
            connection = connections[DB]
            for index, column, converters in plan:
                value = values[index]
                if value is not None:
                    for converter in converters:
                        value = converter(value, column, connection)
                    values[index] = value
        return values

    def _make_plan(self) -> list:
        """(index, column, converters) of each column the ORM converts, as it would."""
        connection = connections[DB]
        plan = []
        for index, field in enumerate(self.fields):
            if field is None:
                continue
            column = field.get_col(field.model._meta.db_table)
            converters = connection.ops.get_db_converters(column) + field.get_db_converters(
                connection
            )
            if converters:
                plan.append((index, column, tuple(converters)))
        return plan

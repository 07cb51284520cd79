"""Django's PostgreSQL backend, with a test database emptied by ``DELETE`` (the suite's only
change to it).

After each transactional test (a live server, a browser, a real worker), Django empties every
table with one ``TRUNCATE`` of all of them: PostgreSQL then makes new files for each of the
60 tables and their indexes, about a second each time on this machine, and a hundred tests do
it. The tables hold a few rows by then: ``DELETE FROM`` each of them takes milliseconds. The
foreign keys Django creates are ``DEFERRABLE INITIALLY DEFERRED`` and the flush runs in one
transaction, so the order of the tables does not matter. Sequences are not reset, as with
Django's own flush unless a test asks for it (``reset_sequences``: then Django's own). The
modules that commit a world of their own empty it the same way
(``tests.template_db.empty_database``; ``flush`` alone resets them, with a ``TRUNCATE``).
"""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(
        self, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False
    ) -> list[str]:
        if not tables or reset_sequences:
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        delete = f"{style.SQL_KEYWORD('DELETE')} {style.SQL_KEYWORD('FROM')}"
        # One round trip for them all (psycopg's client-side cursor sends them as one query).
        return ["\n".join(f"{delete} {style.SQL_FIELD(self.quote_name(t))};" for t in tables)]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

"""PostgreSQL restores as the application's own role: a role that is not a superuser, and
databases of the test's own, all dropped afterwards (the tests' PostgreSQL is shared)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg
import pytest
from django.db import connection
from psycopg import sql


@dataclass
class PostgreSQL:
    """The server's address as the tests' superuser, and what this test made on it."""

    superuser: str
    address: str  # host:port
    role: str
    databases: list[str] = field(default_factory=list)

    def url(self, database: str, user: str | None = None) -> str:
        return f"postgres://{user or self.superuser}@{self.address}/{database}"

    def admin(self) -> psycopg.Connection:
        return psycopg.connect(self.url("postgres"), autocommit=True)

    def database(self, suffix: str, *, owner: str | None = None) -> str:
        """A new empty database (its public schema the owner's: the role restores into it)."""
        name = f"{connection.settings_dict['NAME']}_{suffix}_{secrets.token_hex(3)}"
        with self.admin() as admin:
            admin.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(name), sql.Identifier(owner or self.role)
                )
            )
        self.databases.append(name)
        return name


@pytest.fixture
def postgresql() -> Iterator[PostgreSQL]:
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.skip("the PostgreSQL restore needs DATABASE_URL (CI sets it)")
    config = connection.settings_dict
    role = f"paddock_restore_test_{secrets.token_hex(4)}"
    address = f"{config['HOST']}:{config['PORT'] or 5432}"
    server = PostgreSQL(superuser=config["USER"], address=address, role=role)
    with server.admin() as admin:
        admin.execute(
            sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE").format(
                sql.Identifier(role)
            )
        )
    try:
        yield server
    finally:
        with server.admin() as admin:
            for name in server.databases:
                admin.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))

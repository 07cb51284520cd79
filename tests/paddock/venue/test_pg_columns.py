"""Reading a PostgreSQL archive's tables as ``pg_restore`` writes them (paddock/venue/
pg_columns.py): what the restore compares with this code's migrations. Real archives are in
``test_restore_postgresql.py``; here, what a crafted one may hold and a real one does not."""

from __future__ import annotations

from paddock.venue.backup_checks import pg_schema_refusals
from paddock.venue.pg_columns import archive_columns, archive_migrations

CRAFTED = """\
CREATE TABLE public.tournament_circuit (
    id bigint NOT NULL,
    "order" integer DEFAULT 0 NOT NULL,
    label character varying(20) DEFAULT 'x'::character varying NOT NULL,
    name text DEFAULT pg_sleep((5)::double precision),
    CONSTRAINT positive CHECK ((id >= 0))
)
INHERITS (public.other);
"""


def test_each_column_its_type_nullability_and_default_and_the_options_after_it():
    assert archive_columns(CRAFTED) == {
        "tournament_circuit": [
            ["id", "bigint", True, None],
            ["order", "integer", True, "constant"],
            ["label", "character varying(20)", True, "constant"],
            ["name", "text", False, "pg_sleep((5)::double precision)"],
            ["(options)", "", False, None],
        ]
    }


def test_the_migrations_are_read_whatever_the_order_of_the_columns():
    data = (
        "COPY public.django_migrations (name, applied, app, id) FROM stdin;\n"
        "0001_initial\t2026-07-14 09:00:00+00\ttournament\t1\n"
        "\\.\n"
        "COPY public.other (app, name) FROM stdin;\nx\ty\n\\.\n"
    )
    assert archive_migrations(data) == {("tournament", "0001_initial")}


def test_an_archive_of_a_newer_paddock_or_of_no_paddock_is_refused():
    newer = "COPY public.django_migrations (id, app, name, applied) FROM stdin;\n" + (
        "1\ttournament\t9999_from_the_future\t2026-07-14 09:00:00+00\n\\.\n"
    )
    assert pg_schema_refusals(CRAFTED, newer) == [
        "the migration tournament.9999_from_the_future, unknown to this version of Paddock "
        "(a newer one?)"
    ]
    assert pg_schema_refusals(CRAFTED, "") == [
        "the file holds no migration of Paddock: it is not a Paddock backup"
    ]

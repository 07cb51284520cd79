"""Rows from a file, as the models' own validators see them (slugs, lengths, choices, points
scales, numbers): a championship file (``import_championship``), an event's way back from
its laptop (``paddock.away.landing``) and a SQLite backup restored (``restore``: its
schema checked by ``backup_checks``, then every row of Paddock's own tables, read from the
private copy that is then loaded). A file is not trusted more than a form. Links between rows
are the database's to check (history rows name deleted ones).

Each function answers what it refused, in the user's language (empty: accepted).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import connections, models
from django.utils.translation import gettext as _

#: The apps whose tables Paddock writes (Django's own and the libraries' are left to them),
#: by their package's first name: ``standings`` holds the leagues (``standings.leagues``).
PADDOCK_APPS = ("tournament", "qualifying", "races", "standings")
#: The connection a SQLite backup is read through, read-only, while it is checked.
CHECKED = "paddock_backup_checked"
#: Rows read at a time from a backup.
CHUNK = 2000


#: Problems listed at most, when a file is refused (the rest counted).
MAX_PROBLEMS = 50


def _empty_as_paddock_writes(field: models.Field, value: object) -> bool:
    """An empty value Paddock itself writes: a null the column takes (a history row's reason),
    or the field's own default (no swap yet: ``[]``)."""
    if value not in field.empty_values:
        return False
    return field.null or (field.has_default() and value == field.get_default())


def row_problems(row: models.Model) -> list[str]:
    """What the models' own validators say of a row from a file (slugs, lengths, choices,
    points scales, numbers), in the user's language: the file is not trusted more than a
    form. Links between rows are the database's to check (history rows name deleted ones).
    """
    deferred = row.get_deferred_fields()  # columns a backup of an older version lacks
    exclude = [
        field.name
        for field in row._meta.fields
        if field.is_relation
        or field.attname in deferred
        or _empty_as_paddock_writes(field, getattr(row, field.attname))
    ]
    # A column the backup lacks is read as ``migrate`` adds it, with the field's default: the
    # model's own rules (``clean``) would otherwise query the file for a column it does not
    # have (an event's circuit terms, in a backup of before they were kept).
    for field in row._meta.concrete_fields:
        if field.attname in deferred:
            setattr(row, field.attname, field.get_default())
    try:
        row.full_clean(exclude=exclude, validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        what = f"{row._meta.verbose_name} {row.pk}"
        return [
            _("%(row)s: %(message)s") % {"row": what, "message": message}
            if field == NON_FIELD_ERRORS
            else _("%(row)s, %(field)s: %(message)s")
            % {"row": what, "field": field, "message": message}
            for field, messages in exc.message_dict.items()
            for message in messages
        ]
    return []


def unknown_fields(rows: list[dict[str, Any]]) -> list[str]:
    """The fields the rows of a championship file name that their model does not have (a
    hand-edited file, another version's): said by row, in the user's language,
    before anything is read into a model (Django's deserializer raised a bare traceback)."""
    problems = []
    for row in rows:
        label = str(row.get("model", ""))
        try:
            model = apps.get_model(label)
        except (LookupError, ValueError):
            continue  # an unknown kind of row: refused by its own words before this
        known = set()
        for field in model._meta.get_fields():
            known.add(field.name)
            known.add(getattr(field, "attname", field.name))
        fields = row.get("fields")
        names = fields.keys() if isinstance(fields, dict) else ()
        what = f"{model._meta.verbose_name} {row.get('pk')}"
        problems += [
            _("%(row)s: an unknown field %(field)s") % {"row": what, "field": name}
            for name in sorted(map(str, names))
            if name not in known
        ]
    return problems


def paddock_models() -> list[type[models.Model]]:
    """Every model of a table Paddock writes (history models included), by table name."""
    found = [
        model
        for config in apps.get_app_configs()
        if config.name.split(".")[0] in PADDOCK_APPS
        for model in config.get_models()
        if model._meta.managed and not model._meta.proxy
    ]
    return sorted(found, key=lambda model: model._meta.db_table)


def sqlite_row_problems(path: Path) -> list[str]:
    """What the models' validators say of the rows of the SQLite backup ``path`` (its schema
    accepted already: the columns are those of Paddock's migrations up to the backup's), at
    most ``MAX_PROBLEMS`` and a count of the rest. Read-only: nothing of the file runs."""
    base = connections["default"].settings_dict
    connections.settings[CHECKED] = {
        **base,
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": f"file:{path}?mode=ro",
        "OPTIONS": {},
    }
    try:
        return _sqlite_rows(connections[CHECKED])
    finally:
        connections[CHECKED].close()
        del connections[CHECKED]
        connections.settings.pop(CHECKED, None)


def _sqlite_rows(connection: Any) -> list[str]:
    problems: list[str] = []
    more = 0
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
        for model in paddock_models():
            table = model._meta.db_table
            if table not in tables:
                continue
            columns = {
                c.name for c in connection.introspection.get_table_description(cursor, table)
            }
            present = [f.attname for f in model._meta.concrete_fields if f.column in columns]
            rows = model._base_manager.using(CHECKED).only(*present).order_by().iterator(CHUNK)
            for row in rows:
                found = row_problems(row)
                room = max(0, MAX_PROBLEMS - len(problems))
                problems += found[:room]
                more += len(found) - len(found[:room])
    if more:
        problems.append(_("and %(count)s more.") % {"count": more})
    return problems

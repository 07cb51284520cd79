"""SQL text read as SQL reads it: quoted strings and names apart from the words around them.

What a restore compares of a SQLite backup that ``PRAGMA`` does not say: the CHECK
constraints of a table (only in its ``CREATE TABLE``) and an index's expression or WHERE
(``backup_checks``). The standard library only.
"""

from __future__ import annotations

import re

#: The quotes of SQLite's SQL: strings, identifiers (three spellings).
QUOTES = {"'": "'", '"': '"', "`": "`", "[": "]"}


def sql_words(sql: str | None) -> str | None:
    """``sql`` with its runs of white space outside quotes made one space."""
    if sql is None:
        return None
    out: list[str] = []
    index, space = 0, False
    while index < len(sql):
        char = sql[index]
        if char in QUOTES:
            end = _quote_end(sql, index)
            out.append(("" if not space or not out else " ") + sql[index:end])
            index, space = end, False
            continue
        if char.isspace():
            space = True
        else:
            out.append(("" if not space or not out else " ") + char)
            space = False
        index += 1
    return "".join(out)


def _quote_end(sql: str, start: int) -> int:
    """The index after the quoted text opening at ``start`` (a doubled quote is one)."""
    close = QUOTES[sql[start]]
    index = start + 1
    while index < len(sql):
        if sql[index] == close:
            if close != "]" and sql[index + 1 : index + 2] == close:
                index += 2
                continue
            return index + 1
        index += 1
    return len(sql)


CHECK_WORD = re.compile(r"\b(?:CONSTRAINT\s+(\S+)\s+)?CHECK\s*\(", re.IGNORECASE)


def sql_checks(sql: str) -> list[str]:
    """Every CHECK of a ``CREATE TABLE``'s SQL, with its name when it has one
    (``CONSTRAINT "name" CHECK (…)``), in ``sql_words``' spelling."""
    text = sql_words(sql) or ""
    masked = _masked(text)
    checks = []
    for found in CHECK_WORD.finditer(masked):
        depth, index = 1, found.end()
        while index < len(masked) and depth:
            depth += {"(": 1, ")": -1}.get(masked[index], 0)
            index += 1
        checks.append(text[found.start() : index])
    return checks


def _masked(sql: str) -> str:
    """``sql`` with every quoted text blanked (same length): keywords and parentheses inside
    a string or a quoted name are not SQL's."""
    out, index = [], 0
    while index < len(sql):
        if sql[index] in QUOTES:
            end = _quote_end(sql, index)
            out.append(sql[index] + "_" * (end - index - 2) + sql[end - 1 : end])
            index = end
        else:
            out.append(sql[index])
            index += 1
    return "".join(out)

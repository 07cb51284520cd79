"""Errors a service raises for what a person sent; views show them, the API maps them."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError


class ServiceError(Exception):
    """A refusal with one sentence for a person and, optionally, per-field messages."""

    status = 400
    #: A stable machine word for the refusal, in the API's body when set (``"code"``).
    code: str | None = None

    def __init__(
        self,
        message: str,
        errors: dict[str, list[str]] | None = None,
        current: Any = None,
    ) -> None:
        super().__init__(str(message))
        self.message = str(message)
        self.errors = {key: [str(m) for m in msgs] for key, msgs in (errors or {}).items()}
        self.current = current


class InvalidInput(ServiceError):
    status = 400


class NotAllowed(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


class NotInThisGame(Conflict):
    """A step the event's game does not have (its day, ``tournament.games.registry``)."""

    code = "not_in_this_game"


def invalid_from_validation_error(exc: ValidationError, message: str) -> InvalidInput:
    """Turn Django's ValidationError (from full_clean) into an InvalidInput."""
    if hasattr(exc, "error_dict"):
        errors = {
            field: [str(m) for e in errs for m in e.messages]
            for field, errs in exc.error_dict.items()
        }
    else:
        errors = {"__all__": [str(m) for m in exc.messages]}
    first = next((msgs[0] for msgs in errors.values() if msgs), message)
    return InvalidInput(first if len(errors) == 1 else message, errors)


class LinkReplaced(Exception):
    """A referee link that was regenerated: pages answer "this link was replaced" (410)."""

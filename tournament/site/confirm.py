"""The confirmation step of a destructive action: a page that says what the action will
undo and posts the same form again with ``confirmed=1``. No JavaScript: it works under
the Content-Security-Policy and on any phone."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def confirmed(request: HttpRequest) -> bool:
    """True when the organiser already confirmed (the confirmation page posted again)."""
    return request.POST.get("confirmed") == "1"


def confirm_page(
    request: HttpRequest,
    *,
    title: str,
    undoes: Iterable[str],
    confirm_label: str,
    cancel: str,
    fields: Mapping[str, object] | None = None,
    note: str = "",
    heading: str = "",
) -> HttpResponse:
    """The page asking to confirm: ``undoes`` lists, in words, what the action will undo
    (under "This will undo:", or ``heading`` where nothing is undone but something changes
    for good); the form posts back to the same address with ``fields`` (what was typed)
    kept."""
    return render(
        request,
        "confirm.html",
        {
            "title": title,
            "undoes": list(undoes),
            "heading": heading,
            "note": note,
            "confirm_label": confirm_label,
            "cancel": cancel,
            "action": request.path,
            "fields": [
                (name, value) for name, value in (fields or {}).items() if name != "confirmed"
            ],
        },
    )

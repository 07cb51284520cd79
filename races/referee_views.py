"""Pages for referees with an account ("My tables") and the desk's new qualifying link.

A referee account opens its tables through the same pages as the printed link; "My tables"
hands it the current links, so a regenerated link reaches the account at once.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from qualifying.models import QualifyingTable
from races.grid.services import referee_link_regenerate
from races.models import RaceTable
from races.views import link_undoes
from tournament.access import actor_for, organised_event
from tournament.site.confirm import confirm_page, confirmed


@require_safe
@login_required
def my_tables(request: HttpRequest) -> HttpResponse:
    """The qualifying and race tables this account referees, newest events first."""
    qualifying = (
        QualifyingTable.objects.filter(referee=request.user)
        .select_related("event", "event__circuit")
        .order_by("-event__date", "number")
    )
    races = (
        RaceTable.objects.filter(referee=request.user)
        .select_related("event", "event__circuit")
        .order_by("-event__date", "number")
    )
    return render(
        request,
        "history/my_tables.html",
        {"qualifying_tables": list(qualifying), "race_tables": list(races)},
    )


@require_POST
def qualifying_link_regenerate(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Give a qualifying table a new referee link; the old one says it was replaced."""
    event = organised_event(request, slug)
    table = get_object_or_404(QualifyingTable, event=event, number=number)
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("A new referee link for %(table)s?") % {"table": table},
            undoes=link_undoes(table),
            confirm_label=_("Give a new link"),
            cancel=reverse("event-desk", args=[slug]),
        )
    referee_link_regenerate(actor=actor_for(request), table=table)
    messages.success(
        request,
        _("%(table)s has a new referee link; the old one no longer works.") % {"table": table},
    )
    return redirect("event-desk", slug=slug)

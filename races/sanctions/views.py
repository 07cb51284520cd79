"""Race control's sanctions page (§1-2-3: the organisers decide the consequences): record a
warning, throws added to a qualifying run, points removed for the event or a
disqualification, each with its reason; withdraw one with a reason. Every sanction, in
force or withdrawn, stays listed with who and when."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from races.forms import ReasonForm, SanctionForm
from races.sanctions.services import sanction_record, sanction_withdraw
from races.views import flash_errors
from tournament.access import actor_for, organised_event
from tournament.errors import ServiceError
from tournament.models import Sanction


def sanctions_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = SanctionForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                sanction = sanction_record(
                    actor=actor_for(request),
                    event=event,
                    driver=data["driver"],
                    kind=data["kind"],
                    value=data["value"],
                    session=data["session"],
                    reason=data["reason"],
                )
            except ServiceError as exc:
                for name, errors in exc.errors.items():
                    for error in errors:
                        form.add_error(name if name in form.fields else None, error)
                if not exc.errors:
                    form.add_error(None, exc.message)
                status = 400
            else:
                messages.success(
                    request,
                    _("Sanction recorded: %(driver)s, %(what)s.")
                    % {
                        "driver": f"{sanction.driver.number} {sanction.driver.name}",
                        "what": sanction.words(),
                    },
                )
                return redirect("sanctions", slug=slug)
        else:
            status = 400
    return render(
        request,
        "races/sanctions.html",
        {
            "event": event,
            "form": form,
            "sanctions": Sanction.objects.filter(event=event).select_related("driver"),
        },
        status=status,
    )


@require_POST
def sanction_withdraw_submit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    event = organised_event(request, slug)
    sanction = get_object_or_404(Sanction, event=event, pk=pk)
    form = ReasonForm(request.POST)
    if not form.is_valid():
        flash_errors(request, form)
        return redirect("sanctions", slug=slug)
    try:
        sanction_withdraw(
            actor=actor_for(request), sanction=sanction, reason=form.cleaned_data["reason"]
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Sanction withdrawn: %(driver)s, %(what)s.")
            % {
                "driver": f"{sanction.driver.number} {sanction.driver.name}",
                "what": sanction.words(),
            },
        )
    return redirect("sanctions", slug=slug)

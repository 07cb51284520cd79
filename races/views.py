"""Pages of race day: the organiser's allocation, the public "where do I sit?", a race
table's page for its referee, the race sheets and the batch of all sheets."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from races.forms import (
    AllocationForm,
    ConfigurationForm,
    RollForm,
    SheetBatchForm,
    StandForm,
    SwapForm,
)
from races.models import RaceTable, RaceWeather, ReplacedLink, SheetBatch
from races.pdf import RaceSheetRenderer
from races.selectors import allocation_warnings, tables_with_grids, where_do_i_sit
from races.services import (
    allocation_run,
    configurations_set,
    race_weather_draw,
    referee_account_set,
    referee_link_regenerate,
    sheet_batch_request,
    stands_set,
    swap_drivers,
    table_weather_draw,
)
from races.sheets import race_referee_link, race_sheets
from tournament import ratelimit
from tournament.access import Actor
from tournament.errors import LinkReplaced, ServiceError
from tournament.models import Event
from tournament.views import actor_for, organised_event


def team_colour(team_id: int | None) -> str:
    """A stable colour per team, so team-mates stand out on the allocation page."""
    if team_id is None:
        return "transparent"
    return f"hsl({(team_id * 67) % 360} 60% 45%)"


def _flash_errors(request: HttpRequest, form: Any) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


# --- Organiser: allocation, swaps, race weather, batches ------------------------------------


def allocation_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    tables = tables_with_grids(event=event)
    accounts = dict(
        RaceTable.objects.filter(event=event, referee__isnull=False).values_list(
            "pk", "referee__username"
        )
    )
    for table in tables:
        table.referee_username = accounts.get(table.pk, "")  # type: ignore[attr-defined]
        for slot in table.grid:  # type: ignore[attr-defined]
            slot.colour = team_colour(slot.driver.team_id)
    batches = {b.kind: b for b in SheetBatch.objects.filter(event=event).defer("pdf")}
    return render(
        request,
        "races/allocation.html",
        {
            "event": event,
            "tables": tables,
            "warnings": allocation_warnings(event=event),
            "swaps": event.manual_swaps.select_related("driver_a", "driver_b")[:20],
            "allocation_form": AllocationForm(initial={"table_size": event.table_size}),
            "swap_form": SwapForm(),
            "weather_form": RollForm(),
            "race_weather": RaceWeather.objects.filter(event=event).first(),
            "batches": batches,
        },
    )


@require_POST
def allocation_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = AllocationForm(request.POST)
    if not form.is_valid():
        _flash_errors(request, form)
        return redirect("allocation", slug=slug)
    try:
        tables = allocation_run(
            actor=actor_for(request), event=event, table_size=form.cleaned_data["table_size"]
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("%(count)s race table(s) allocated.") % {"count": len(tables)})
    return redirect("allocation", slug=slug)


@require_POST
def swap_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = SwapForm(request.POST)
    if not form.is_valid():
        _flash_errors(request, form)
        return redirect("allocation", slug=slug)
    try:
        swap = swap_drivers(
            actor=actor_for(request),
            event=event,
            a=form.cleaned_data["a"],
            b=form.cleaned_data["b"],
            reason=form.cleaned_data["reason"],
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("%(a)s and %(b)s swapped tables.")
            % {"a": swap.driver_a.name, "b": swap.driver_b.name},
        )
    return redirect("allocation", slug=slug)


@require_POST
def race_weather_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = RollForm(request.POST)
    if not form.is_valid():
        _flash_errors(request, form)
        return redirect("allocation", slug=slug)
    try:
        race = race_weather_draw(
            actor=actor_for(request), event=event, roll=form.cleaned_data["roll"]
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Race weather: d20 = %(roll)s, %(weather)s.")
            % {"roll": race.roll, "weather": race.get_weather_display()},
        )
    return redirect("allocation", slug=slug)


@require_POST
def referee_link_submit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = organised_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    referee_link_regenerate(actor=actor_for(request), table=table)
    messages.success(
        request,
        _("%(table)s has a new referee link; the old one no longer works.") % {"table": table},
    )
    return redirect("allocation", slug=slug)


@require_POST
def referee_account_submit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """The organiser assigns a referee account (by username) to a race table, or none."""
    event = organised_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    try:
        referee_account_set(
            actor=actor_for(request), table=table, username=request.POST.get("username", "")
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if table.referee_id:
            messages.success(
                request,
                _("%(user)s referees %(table)s: their account opens this table's page.")
                % {"user": table.referee.get_username(), "table": table},
            )
        else:
            messages.success(
                request, _("%(table)s has no referee account any more.") % {"table": table}
            )
    return redirect(reverse("allocation", args=[slug]) + f"#table-{table.number}")


@require_POST
def sheet_batch_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = SheetBatchForm(request.POST)
    if not form.is_valid():
        _flash_errors(request, form)
        return redirect("allocation", slug=slug)
    kind = form.cleaned_data["kind"]
    inline = request.POST.get("inline") == "1"
    try:
        batch = sheet_batch_request(
            actor=actor_for(request),
            event=event,
            kind=kind,
            language=event.language,
            inline=inline,
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("allocation", slug=slug)
    if batch.queue_unreachable:
        messages.warning(
            request,
            _("The task queue is unavailable: the sheets were built right away instead."),
        )
    return redirect("sheet-batch", slug=slug, kind=kind)


def sheet_batch_page(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    event = organised_event(request, slug)
    batch = get_object_or_404(SheetBatch.objects.defer("pdf"), event=event, kind=kind)
    template = "races/_batch_progress.html" if request.htmx else "races/batch.html"  # type: ignore[attr-defined]
    # A worker that died mid-build leaves "running" behind: offer to build it here then.
    stalled = batch.status == SheetBatch.Status.RUNNING and batch.updated_at < (
        timezone.now() - datetime.timedelta(minutes=2)
    )
    return render(request, template, {"event": event, "batch": batch, "stalled": stalled})


def sheet_batch_download(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    event = organised_event(request, slug)
    batch = get_object_or_404(SheetBatch, event=event, kind=kind, status=SheetBatch.Status.DONE)
    response = HttpResponse(bytes(batch.pdf or b""), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{event.slug}-{kind}-sheets.pdf"'
    return response


# --- Public: where do I sit? ------------------------------------------------------------------


def where_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("championship"), slug=slug)
    if not event.published_allocation and not actor_for(request).can_organise(event.championship):
        raise Http404(_("The tables are not published yet."))
    query = request.GET.get("q", "")[:60]
    return render(
        request,
        "races/where.html",
        {"event": event, "query": query, "seats": where_do_i_sit(event=event, query=query)},
    )


# --- A race table, opened from its referee link -----------------------------------------------


def replaced_or_404(token: str, request: HttpRequest | None = None) -> None:
    """An old referee link gets a clear page (LinkReplaced) rather than a bare 404.

    An unknown link counts as a failure of the address; past the limit it gets a 429
    (``tournament.ratelimit``). Valid links are never limited.
    """
    if ReplacedLink.objects.filter(token=token).exists():
        raise LinkReplaced()
    if request is not None:
        ratelimit.check(request)
        ratelimit.record_failure(request)
    raise Http404(_("Unknown table link."))


def table_actor(request: HttpRequest, table: Any) -> Actor:
    """Who acts on a table's pages: an organiser or the table's referee account under
    their own name; anyone else holding the link acts as the link."""
    actor = actor_for(request)
    if actor.can_organise(table.event.championship):
        return actor
    if actor.is_authenticated and table.referee_id == actor.user.pk:
        return actor
    return Actor(table=table)


def _race_table(request: HttpRequest, token: str) -> tuple[RaceTable, Actor]:
    table = (
        RaceTable.objects.select_related("event", "event__championship", "event__circuit")
        .filter(token=token)
        .first()
    )
    if table is None:
        replaced_or_404(token, request)
    return table, table_actor(request, table)  # type: ignore[return-value]


def rtable(request: HttpRequest, token: str) -> HttpResponse:
    table, _actor = _race_table(request, token)
    event = table.event
    (table,) = tables_with_grids(event=event, only=table)
    grid = table.grid  # type: ignore[attr-defined]
    taken = {s.stand for s in grid if s.stand is not None}
    free = [s for s in event.stands() if s not in taken]
    chooser = next((s for s in grid if s.stand is None), None)
    race = RaceWeather.objects.filter(event=event).first()
    return render(
        request,
        "races/table.html",
        {
            "table": table,
            "event": event,
            "grid": grid,
            "chooser": chooser,
            "stand_form": StandForm(stands=free) if chooser else None,
            "race": race,
            "draws": table.weather_draws.all(),
            "roll_form": RollForm(),
            "can_draw": bool(race and race.weather == "variable" and not table.weather_fixed),
            "config_forms": [
                (
                    slot,
                    ConfigurationForm(
                        prefix=f"c{slot.driver.number}",
                        instance_values=getattr(slot, "configuration", None),
                    ),
                )
                for slot in grid
            ]
            if event.use_configurations
            else [],
            "link": race_referee_link(table),
        },
    )


def _back(token: str, anchor: str = "") -> HttpResponse:
    return redirect(reverse("rtable", args=[token]) + anchor)


@require_POST
def rtable_stand(request: HttpRequest, token: str, number: int) -> HttpResponse:
    table, actor = _race_table(request, token)
    form = StandForm(request.POST, stands=table.event.stands())
    if not form.is_valid():
        _flash_errors(request, form)
        return _back(token, "#stands")
    try:
        stands_set(actor=actor, table=table, stands={number: form.cleaned_data["stand"]})
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Stand %(stand)s taken by driver %(number)s.")
            % {"stand": form.cleaned_data["stand"], "number": number},
        )
    return _back(token, "#stands")


@require_POST
def rtable_configuration(request: HttpRequest, token: str, number: int) -> HttpResponse:
    table, actor = _race_table(request, token)
    form = ConfigurationForm(request.POST, prefix=f"c{number}")
    values = {k: v for k, v in form.raw_values().items()}
    try:
        configurations_set(actor=actor, table=table, configurations={number: values})
    except ServiceError as exc:
        if not exc.errors:
            messages.error(request, exc.message)
        for errors in exc.errors.values():
            for error in errors:
                messages.error(request, f"{number}: {error}")
    else:
        messages.success(
            request, _("Configuration of driver %(number)s saved.") % {"number": number}
        )
    return _back(token, "#configurations")


@require_POST
def rtable_weather(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = _race_table(request, token)
    form = RollForm(request.POST)
    if not form.is_valid():
        _flash_errors(request, form)
        return _back(token, "#weather")
    try:
        draw = table_weather_draw(actor=actor, table=table, roll=form.cleaned_data["roll"])
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("d20 = %(roll)s: %(weather)s, track %(track)s%(fixed)s.")
            % {
                "roll": draw.roll,
                "weather": draw.get_drawn_display(),
                "track": draw.get_track_display().lower(),
                "fixed": _(", fixed for the rest of the race") if draw.fixed else "",
            },
        )
    return _back(token, "#weather")


def rtable_sheet(request: HttpRequest, token: str) -> HttpResponse:
    table, _actor = _race_table(request, token)
    (data,) = race_sheets(event=table.event, tables=[table])
    response = HttpResponse(RaceSheetRenderer().render(data), content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{table.event.slug}-table-{table.number}.pdf"'
    )
    return response

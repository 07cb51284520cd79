"""Pages of race day for race control: the allocation (tables, swaps, the race weather and
every draw of it, each table's weather draws and start, new referee links), the batch of
all sheets, and the public "where do I sit?". A race table's own page, for its referee, is
in ``races.table_views``.

Destructive actions (a new allocation, a new referee link) first show what they will undo
(``tournament.site.confirm``)."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from races.forms import AllocationForm, RaceWeatherForm, ReasonForm, SheetBatchForm, SwapForm
from races.grid.services import (
    allocation_run,
    allocation_undo,
    referee_link_regenerate,
    sheet_batch_request,
    swap_drivers,
)
from races.grid.start import table_unlock
from races.models import (
    CarConfiguration,
    GridSlot,
    RaceTable,
    RaceWeather,
    RaceWeatherDraw,
    SheetBatch,
    WeatherDraw,
)
from races.selectors import (
    SEATING_TABLES,
    Place,
    Seating,
    allocation_warnings,
    event_seating,
    tables_with_grids,
)
from races.weather.services import race_weather_draw, table_weather_undo
from tournament.access import (
    Actor,
    actor_for,
    desk_event,
    organised_event,
    replaced_or_404,
    table_actor,
)
from tournament.errors import ServiceError
from tournament.models import Event
from tournament.public.cache import public_page
from tournament.public.players import forget, remember, remembered_number
from tournament.registration.services import referee_account_set
from tournament.sealing import link_digest
from tournament.site.confirm import confirm_page, confirmed


def team_colour(team_id: int | None) -> str:
    """A stable colour per team, so team-mates stand out on the allocation page."""
    if team_id is None:
        return "transparent"
    return f"hsl({(team_id * 67) % 360} 60% 45%)"


def flash_errors(request: HttpRequest, form: Any) -> None:
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
    draws: dict[int, list[WeatherDraw]] = {}
    for draw in WeatherDraw.objects.filter(table__event=event).order_by("number"):
        draws.setdefault(draw.table_id, []).append(draw)
    for table in tables:
        table.referee_username = accounts.get(table.pk, "")  # type: ignore[attr-defined]
        table.draws = draws.get(table.pk, [])  # type: ignore[attr-defined]
        table.can_undo = any(d.undone_at is None for d in table.draws)  # type: ignore[attr-defined]
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
            "weather_form": RaceWeatherForm(),
            "race_weather": RaceWeather.objects.filter(event=event).first(),
            "race_draws": RaceWeatherDraw.objects.filter(event=event).order_by("number"),
            "batches": batches,
        },
    )


def _allocation_undoes(event: Event) -> list[str]:
    """What a new allocation clears, in words (nothing when no table exists yet)."""
    tables = RaceTable.objects.filter(event=event).count()
    if not tables:
        return []
    stands = GridSlot.objects.filter(event=event, stand__isnull=False).count()
    configurations = CarConfiguration.objects.filter(slot__event=event).count()
    draws = WeatherDraw.objects.filter(table__event=event).count()
    undoes = [
        ngettext(
            "the grid of the %(count)s race table as it stands (manual swaps included)",
            "the grids of the %(count)s race tables as they stand (manual swaps included)",
            tables,
        )
        % {"count": tables}
    ]
    if stands:
        undoes.append(
            ngettext(
                "%(count)s stand chosen: drivers choose again",
                "%(count)s stands chosen: drivers choose again",
                stands,
            )
            % {"count": stands}
        )
    if configurations:
        undoes.append(
            ngettext(
                "%(count)s car configuration recorded",
                "%(count)s car configurations recorded",
                configurations,
            )
            % {"count": configurations}
        )
    if draws:
        undoes.append(
            ngettext(
                "%(count)s weather draw at the tables",
                "%(count)s weather draws at the tables",
                draws,
            )
            % {"count": draws}
        )
    return undoes


@require_POST
def allocation_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = AllocationForm(request.POST)
    if not form.is_valid():
        flash_errors(request, form)
        return redirect("allocation", slug=slug)
    undoes = _allocation_undoes(event)
    if undoes and not confirmed(request):
        return confirm_page(
            request,
            title=_("Allocate the race tables again?"),
            undoes=undoes,
            note=_("The referee links of the tables stay the same."),
            confirm_label=_("Allocate again"),
            cancel=reverse("allocation", args=[slug]),
            fields={"table_size": form.cleaned_data["table_size"]},
        )
    try:
        tables = allocation_run(
            actor=actor_for(request), event=event, table_size=form.cleaned_data["table_size"]
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            ngettext(
                "%(count)s race table allocated.", "%(count)s race tables allocated.", len(tables)
            )
            % {"count": len(tables)},
        )
    return redirect("allocation", slug=slug)


@require_POST
def allocation_undo_submit(request: HttpRequest, slug: str) -> HttpResponse:
    """Undo the race tables, once asked (the tables' page's button): refused, with the
    tables named, once one has started."""
    event = organised_event(request, slug)
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("Undo the race tables?"),
            undoes=_allocation_undoes(event),
            note=_("The referee links of the tables stop working. The drivers stay entered."),
            confirm_label=_("Undo the tables"),
            cancel=reverse("allocation", args=[slug]),
        )
    try:
        count = allocation_undo(actor=actor_for(request), event=event)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            ngettext("%(count)s race table undone.", "%(count)s race tables undone.", count)
            % {"count": count},
        )
    return redirect("allocation", slug=slug)


@require_POST
def swap_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = SwapForm(request.POST)
    if not form.is_valid():
        flash_errors(request, form)
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
        for driver, mate, table in swap.clashes:  # type: ignore[attr-defined]
            messages.warning(
                request,
                _(
                    "Team-mates now at the same table: %(driver)s and %(mate)s (%(team)s) at "
                    "table %(table)s."
                )
                % {
                    "driver": f"{driver.number} {driver.name}",
                    "mate": f"{mate.number} {mate.name}",
                    "team": driver.team,
                    "table": table,
                },
            )
    return redirect("allocation", slug=slug)


@require_POST
def race_weather_submit(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    form = RaceWeatherForm(request.POST)
    if not form.is_valid():
        flash_errors(request, form)
        return redirect(reverse("allocation", args=[slug]) + "#race-weather")
    try:
        race = race_weather_draw(
            actor=actor_for(request),
            event=event,
            roll=form.cleaned_data["roll"],
            reason=form.cleaned_data["reason"],
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Race weather: d20 = %(roll)s, %(weather)s.")
            % {"roll": race.roll, "weather": race.get_weather_display()},
        )
    return redirect(reverse("allocation", args=[slug]) + "#race-weather")


@require_POST
def table_weather_undo_submit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Race control undoes a table's last weather draw, made by mistake (with a reason)."""
    event = organised_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    back = request.POST.get("back") == "table"
    target = (
        reverse("rtable", args=[table.token]) + "#weather"
        if back
        else reverse("allocation", args=[slug]) + f"#table-{number}"
    )
    form = ReasonForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Say why this weather draw is undone."))
        return redirect(target)
    try:
        draw = table_weather_undo(
            actor=actor_for(request), table=table, reason=form.cleaned_data["reason"]
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        table.refresh_from_db()
        messages.success(
            request,
            _(
                "%(table)s: weather draw %(number)s (d20 = %(roll)s) undone; the table is "
                "now %(weather)s, track %(track)s."
            )
            % {
                "table": table,
                "number": draw.number,
                "roll": draw.roll,
                "weather": table.get_weather_display(),
                "track": table.get_track_display().lower(),
            },
        )
    return redirect(target)


@require_POST
def table_unlock_submit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """Race control unlocks a started table (with a reason): stands and configurations may
    change again until the referee starts it anew."""
    event = organised_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    back = request.POST.get("back") == "table"
    target = (
        reverse("rtable", args=[table.token]) + "#start"
        if back
        else reverse("allocation", args=[slug]) + f"#table-{number}"
    )
    form = ReasonForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Say why the table is unlocked."))
        return redirect(target)
    try:
        table_unlock(actor=actor_for(request), table=table, reason=form.cleaned_data["reason"])
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("%(table)s is unlocked: its stands and configurations may change again.")
            % {"table": table},
        )
    return redirect(target)


@require_POST
def referee_link_submit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    event = organised_event(request, slug)
    table = get_object_or_404(RaceTable, event=event, number=number)
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("A new referee link for %(table)s?") % {"table": table},
            undoes=link_undoes(table),
            confirm_label=_("Give a new link"),
            cancel=reverse("allocation", args=[slug]) + f"#table-{number}",
        )
    referee_link_regenerate(actor=actor_for(request), table=table)
    messages.success(
        request,
        _("%(table)s has a new referee link; the old one no longer works.") % {"table": table},
    )
    return redirect(reverse("allocation", args=[slug]) + f"#table-{number}")


def link_undoes(table: Any) -> list[str]:
    """What a new referee link undoes (a race or a qualifying table), in words."""
    return [
        _(
            "the current link of %(table)s and the QR code printed on its sheet: they stop "
            "working at once, so its referee needs the new link or a new sheet"
        )
        % {"table": table}
    ]


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
    event = desk_event(request, slug)
    # Back where a refusal is read: the allocation for an organiser, the desk for the
    # desk (which may print the sheets, never open the allocation).
    back = "allocation" if actor_for(request).can_organise(event.championship) else "event-desk"
    form = SheetBatchForm(request.POST)
    if not form.is_valid():
        flash_errors(request, form)
        return redirect(back, slug=slug)
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
        return redirect(back, slug=slug)
    if batch.queue_unreachable:
        messages.warning(
            request,
            _("The task queue is unavailable: the sheets were built right away instead."),
        )
    return redirect("sheet-batch", slug=slug, kind=kind)


def sheet_batch_page(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    event = desk_event(request, slug)
    batch = get_object_or_404(SheetBatch.objects.defer("pdf"), event=event, kind=kind)
    template = "races/_batch_progress.html" if request.htmx else "races/batch.html"  # type: ignore[attr-defined]
    # A worker that died mid-build leaves "running" behind: offer to build it here then. A
    # batch no worker has taken for a minute: none runs, or the queue lost its message.
    now = timezone.now()
    stalled = batch.status == SheetBatch.Status.RUNNING and batch.updated_at < (
        now - datetime.timedelta(minutes=2)
    )
    untaken = batch.status == SheetBatch.Status.QUEUED and batch.updated_at < (
        now - datetime.timedelta(minutes=1)
    )
    return render(
        request,
        template,
        {
            "event": event,
            "batch": batch,
            "stalled": stalled,
            "untaken": untaken,
            # Back to the race tables, the organisers' page; the desk back to its own.
            "can_organise": actor_for(request).can_organise(event.championship),
        },
    )


def sheet_batch_download(request: HttpRequest, slug: str, kind: str) -> HttpResponse:
    event = desk_event(request, slug)
    batch = get_object_or_404(SheetBatch, event=event, kind=kind, status=SheetBatch.Status.DONE)
    response = HttpResponse(bytes(batch.pdf or b""), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{event.slug}-{kind}-sheets.pdf"'
    return response


# --- Public: where do I sit? ------------------------------------------------------------------


@public_page(
    "tournament.Event", "tournament.Championship", *SEATING_TABLES, params=("q",), personal=True
)
def where_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The qualifying table in the morning, the race table once the allocation is out; the
    driver this phone chose ("This is me", ``?me=<number>``) shown first on later visits."""
    event = get_object_or_404(Event.objects.select_related("championship"), slug=slug)
    organiser = actor_for(request).can_desk(event.championship)
    race = event.published_allocation or organiser
    qualifying = event.published_qualifying_tables or organiser
    if not (race or qualifying):
        raise Http404(_("The tables are not published yet."))
    if "me" in request.GET:
        response = redirect("where", slug=slug)
        chosen = request.GET["me"]
        if chosen.isascii() and chosen.isdigit() and len(chosen) <= 6:
            remember(response, event.championship, int(chosen))
        else:
            forget(response)
        return response
    query = request.GET.get("q", "")[:60]
    number = remembered_number(request, event.championship)
    mine, seats = None, []
    # One read of the event's seating (once per version of its rows), two searches in it.
    # The plain page reads it too: it is the page a publication and a starting server build
    # ahead of the phones (tournament.public.warming), so their searches find it read.
    seating = event_seating(event=event)
    if number is not None or query:
        if number is not None:
            mine = next(
                (
                    seat
                    for seat in seating.search(str(number), race=race, qualifying=qualifying)
                    if seat.driver.number == number
                ),
                None,
            )
        seats = [
            _seat_html(seating, place, event=event, race=race)
            for place in seating.find(query, race=race, qualifying=qualifying)
        ]
    return render(
        request,
        "races/where.html",
        {
            "event": event,
            "query": query,
            "mine": mine,
            "race_published": race,
            "seats": seats,
        },
    )


def _seat_html(seating: Seating, place: Place, *, event: Event, race: bool) -> SafeString:
    """A seat found, rendered once per version of the event's seating, language and
    publication in this process (kept with the seating): a search joins pieces."""
    key = ("where-seat", get_language(), race, place.kind, place.driver.pk)
    html = seating.rendered.get(key)
    if html is None:
        context = {"seat": seating.seat(place), "event": event, "race_published": race}
        html = render_to_string("races/_seat.html", context)
        seating.rendered[key] = html
    return html


# --- A race table, opened from its referee link -----------------------------------------------


def _race_table(request: HttpRequest, token: str) -> tuple[RaceTable, Actor]:
    table = (
        RaceTable.objects.select_related("event", "event__championship", "event__circuit")
        .filter(token_digest=link_digest(token))
        .first()
    )
    if table is None:
        replaced_or_404(token, request)
    # Its pages link to themselves with the secret of the address, whatever key sealed it.
    table.opened_with(token)  # type: ignore[union-attr]
    return table, table_actor(request, table)  # type: ignore[return-value]

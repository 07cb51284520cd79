"""A race table's page, opened from its referee link (or by race control), in the order of
the game: the stands chosen in grid order (§4-0-1: the next driver is named, taken stands
are greyed, a stand corrected before the start), the car configurations (chosen knowing
the race weather, §3-0-1), the start that writes them in ink (§5-0-2, confirmed first),
then the table's weather draws during the race (§3-2-4: the referee types the die; the
system rolls only on "roll for me"); race control undoes a draw or unlocks the table here
too. The referee holding the link gives their name once, for the trail.

Writes go through ``races.weather.services`` and ``races.grid.start``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from qualifying.forms import RefereeNameForm
from races import variants
from races.forms import ConfigurationForm, RollForm
from races.grid.start import (
    configurations_set,
    missing_words,
    stands_set,
    start_missing,
    table_start,
)
from races.models import RaceWeather, RaceWeatherDraw
from races.selectors import tables_with_grids
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.selectors import race_referee_link, race_sheets
from races.views import _race_table, flash_errors
from races.weather.services import table_weather_draw
from tournament.access import referee_name
from tournament.errors import ServiceError
from tournament.site.confirm import confirm_page, confirmed


def _stand_buttons(event_stands: list[int], grid: list[Any]) -> list[dict[str, Any]]:
    """Every stand of the event, with who holds it at this table (None: free)."""
    holders = {slot.stand: slot.driver for slot in grid if slot.stand is not None}
    return [{"number": stand, "holder": holders.get(stand)} for stand in event_stands]


def rtable(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = _race_table(request, token)
    event = table.event
    own_page = variants.variant_of(event.game).table_page
    if own_page is not None:  # the game's own page for its tables
        return redirect(own_page, token=token)
    (table,) = tables_with_grids(event=event, only=table)
    grid = table.grid  # type: ignore[attr-defined]
    stands = event.stands()
    taken = {s.stand for s in grid if s.stand is not None}
    free = [s for s in stands if s not in taken]
    chooser = next((s for s in grid if s.stand is None), None)
    race = RaceWeather.objects.filter(event=event).first()
    missing = [] if table.started else start_missing(table)
    game_context = variants.variant_of(event.game).table_context
    return render(
        request,
        "races/table.html",
        {
            "table": table,
            "event": event,
            "grid": grid,
            "chooser": chooser,
            "stand_buttons": _stand_buttons(stands, grid),
            "free_stands": free,
            "race": race,
            "race_draws": RaceWeatherDraw.objects.filter(event=event).order_by("number"),
            "draws": table.weather_draws.order_by("number"),
            "can_undo": table.weather_draws.filter(undone_at__isnull=True).exists(),
            "roll_form": RollForm(),
            "can_draw": bool(
                table.started and race and race.weather == "variable" and not table.weather_fixed
            ),
            "needs_race_weather": event.draws_race_weather and race is None,
            "link_holder": actor.table is not None,
            "referee_name": referee_name(request, table) if actor.table is not None else "",
            "missing": missing_words(missing) if missing else "",
            "has_stands": event.has_stands,
            "is_organiser": actor.can_organise(event.championship),
            "config_forms": _configuration_forms(request, table, grid)
            if event.use_configurations
            else [],
            "link": race_referee_link(table),
            **(game_context(event) if game_context else {}),
        },
    )


#: The session key of a refused configuration: what was typed and why it was refused, shown
#: again in the page the refusal redirects to.
REFUSED = "refused-configuration"


def _configuration_forms(
    request: HttpRequest, table: Any, grid: list[Any]
) -> list[tuple[Any, ConfigurationForm]]:
    """One form per driver of the grid; a refused one comes back as it was typed, each
    reason next to its box."""
    stands = table.event.has_stands
    refused = request.session.pop(REFUSED, None) or {}
    if refused.get("table") != table.pk:
        refused = {}
    forms = []
    for slot in grid:
        prefix = f"c{slot.driver.number}"
        if refused.get("number") == slot.driver.number:
            form = ConfigurationForm(refused["data"], prefix=prefix, stands=stands)
            form.show_refusal(refused["errors"])
        else:
            form = ConfigurationForm(
                prefix=prefix, instance_values=getattr(slot, "configuration", None), stands=stands
            )
        forms.append((slot, form))
    return forms


def _back(token: str, anchor: str = "") -> HttpResponse:
    return redirect(reverse("rtable", args=[token]) + anchor)


def _stand_typed(text: str) -> int | None | str:
    """A stand as posted: its number, None to free it, or the text when it is neither."""
    text = (text or "").strip()
    if text == "":
        return None
    return int(text) if text.isascii() and text.isdigit() and len(text) < 6 else text


@require_POST
def rtable_stand(request: HttpRequest, token: str, number: int) -> HttpResponse:
    """Driver ``number`` takes (or corrects, or frees with an empty value) a stand."""
    table, actor = _race_table(request, token)
    stand = _stand_typed(request.POST.get("stand", ""))
    if isinstance(stand, str):
        messages.error(request, _("Choose a stand from the list."))
        return _back(token, "#stands")
    try:
        stands_set(actor=actor, table=table, stands={number: stand})
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        if stand is None:
            messages.success(
                request,
                _("Driver %(number)s has no stand any more: they choose again.")
                % {"number": number},
            )
        else:
            messages.success(
                request,
                _("Stand %(stand)s taken by driver %(number)s.")
                % {"stand": stand, "number": number},
            )
    return _back(token, "#stands")


@require_POST
def rtable_configuration(request: HttpRequest, token: str, number: int) -> HttpResponse:
    table, actor = _race_table(request, token)
    form = ConfigurationForm(request.POST, prefix=f"c{number}", stands=table.event.has_stands)
    values = {k: v for k, v in form.raw_values().items()}
    try:
        configurations_set(actor=actor, table=table, configurations={number: values})
    except ServiceError as exc:
        messages.error(request, exc.message)
        if exc.errors:
            # What was typed comes back in the page, each reason beside its box.
            request.session[REFUSED] = {
                "table": table.pk,
                "number": number,
                "data": {k: v for k, v in request.POST.items() if k.startswith(f"c{number}-")},
                "errors": exc.errors,
            }
        return _back(token, f"#config-{number}")
    else:
        messages.success(
            request, _("Configuration of driver %(number)s saved.") % {"number": number}
        )
    return _back(token, "#configurations")


@require_POST
def rtable_name(request: HttpRequest, token: str) -> HttpResponse:
    """The referee holding the link gives a name once; the trail then says who acted."""
    table, _actor = _race_table(request, token)
    RefereeNameForm.remember_posted(request, table)
    if request.POST.get("back") == "result":  # asked on the result page too
        return redirect("result-entry", token=token)
    return _back(token)


@require_POST
def rtable_start(request: HttpRequest, token: str) -> HttpResponse:
    """The referee starts the race: stands and configurations are written in ink. A
    confirmation step comes first (no tap starts a race by mistake)."""
    table, actor = _race_table(request, token)
    if not table.started and not confirmed(request):
        missing = start_missing(table)
        if not missing:
            return confirm_page(
                request,
                title=_("Start the race at %(table)s?") % {"table": table},
                heading=_("Once the race starts:"),
                undoes=[
                    _(
                        "the stands and configurations can no longer change: they are "
                        "written in ink (§5-0-2); only race control can unlock the table"
                    )
                ],
                note=_("Start once the cars are on the grid, before the first game turn."),
                confirm_label=_("Start the race"),
                cancel=reverse("rtable", args=[token]) + "#start",
            )
    try:
        table = table_start(actor=actor, table=table)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("The race has started at %(table)s: stands and configurations are locked.")
            % {"table": table},
        )
    return _back(token, "#start")


@require_POST
def rtable_weather(request: HttpRequest, token: str) -> HttpResponse:
    table, actor = _race_table(request, token)
    form = RollForm(request.POST)
    if not form.is_valid():
        flash_errors(request, form)
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
    game_sheets = variants.variant_of(table.event.game).sheets
    if game_sheets is not None:
        pdf = game_sheets(event=table.event, tables=[table], language=table.event.language)
    else:
        (data,) = race_sheets(event=table.event, tables=[table])
        pdf = RaceSheetRenderer().render(data)
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = (
        f'inline; filename="{table.event.slug}-table-{table.number}.pdf"'
    )
    return response

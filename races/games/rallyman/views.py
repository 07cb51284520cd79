"""Pages of Rallyman: the organiser's rally page (stages, stage-1 start order), the times of
a stage (one row per driver), the classifications (stage scratch, re-classification,
final; public once the results are published) and the race-control sheet PDF.

Writes go through ``races.games.rallyman.services``; views fetch, parse, call, redirect or
show the refusal with what was typed kept.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from races.games.rallyman import rules as rallyman
from races.games.rallyman import services as game_services
from races.games.rallyman.pdf import RallySheet
from races.models import Stage
from tournament.access import actor_for, desk_event
from tournament.errors import InvalidInput, ServiceError
from tournament.models import Event

# --- Rallyman ---------------------------------------------------------------------------------


def _rally_event(request: HttpRequest, slug: str) -> Event:
    """A rally for its desk (times entered) and organisers (stages, start order, snow: the
    services refuse these to the desk)."""
    event = desk_event(request, slug)
    if event.game != Event.Game.RALLYMAN:
        raise Http404(_("This event is not a rally."))
    return event


def rally_context(event: Event) -> dict[str, Any]:
    """Stages with their scratch, the re-classification after each, and the final."""
    drivers = {d.number: d for d in game_services.rally_drivers(event)}
    stages = []
    for stage in game_services.stages_of(event):
        records = {t.driver.number: t for t in stage.times.select_related("driver")}
        scratch = [
            {
                "rank": line.rank,
                "driver": drivers.get(line.driver),  # type: ignore[call-overload]
                "chrono": rallyman.format_chrono(records[line.driver].chrono),  # type: ignore[index]
                "held": records[line.driver].seconds_held,  # type: ignore[index]
                "time": rallyman.format_chrono(line.time),
                "retired": line.retired,
            }
            for line in rallyman.stage_scratch(game_services._entries_of(stage))
        ]
        after = [
            {
                "rank": line.rank,
                "driver": drivers.get(line.driver),  # type: ignore[call-overload]
                "total": rallyman.format_chrono(line.total),
                "retired_in": line.retired_in,
            }
            for line in game_services.rally_after(event, stage.number)
        ]
        zones = rallyman.route_zones(stage.route)
        stages.append(
            {
                "stage": stage,
                "zones": zones,
                "snow_zones": list(zip(zones, stage.snow or [False] * len(zones), strict=False)),
                "snowy": game_services.snowy_zones(stage),
                "start_order": [
                    drivers.get(n) for n in game_services.start_order_of(stage) if n in drivers
                ],
                "scratch": scratch,
                "after": after,
                "complete": game_services.stage_complete(stage),
            }
        )
    return {"event": event, "stages": stages, "drivers": list(drivers.values())}


@require_http_methods(["GET", "POST"])
def rally_desk(request: HttpRequest, slug: str) -> HttpResponse:
    """The organiser's rally page: add stages, set or draw the stage-1 start order."""
    event = _rally_event(request, slug)
    actor = actor_for(request)
    errors: list[str] = []
    status = 200
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "stage":
                number_text = request.POST.get("number", "")
                if not (number_text.isascii() and number_text.isdigit() and len(number_text) < 3):
                    raise InvalidInput(_("Stages are numbered 1 to 99."))
                game_services.stage_create(
                    actor=actor,
                    event=event,
                    number=int(number_text),
                    route=request.POST.get("route", ""),
                    service_after=bool(request.POST.get("service_after")),
                )
                messages.success(request, _("Stage added."))
            elif action in ("snow", "snow-system"):
                number_text = request.POST.get("stage", "")
                stage = Stage.objects.filter(
                    event=event,
                    number=int(number_text)
                    if number_text.isascii() and number_text.isdigit() and len(number_text) < 3
                    else 0,
                ).first()
                if stage is None:
                    raise InvalidInput(_("Choose a stage."))
                zones = rallyman.route_zones(stage.route)
                snow = None
                if action == "snow":  # the dice rolled at the table, one per zone
                    snow = [bool(request.POST.get(f"zone-{i}")) for i in range(len(zones))]
                stage = game_services.stage_snow_set(
                    actor=actor, stage=stage, snow=snow, reason=request.POST.get("reason", "")
                )
                snowy = game_services.snowy_zones(stage)
                messages.success(
                    request,
                    _("Snow of stage %(number)s: %(zones)s.")
                    % {"number": stage.number, "zones": " ".join(snowy) or _("no snow")},
                )
            elif action in ("order", "draw"):
                stage = Stage.objects.filter(event=event, number=1).first()
                if stage is None:
                    raise InvalidInput(_("Add stage 1 first."))
                order = []
                for token in request.POST.get("order", "").replace(",", " ").split():
                    if not (token.isascii() and token.isdigit() and len(token) < 7):
                        raise InvalidInput(
                            _("“%(value)s” is not a driver number.") % {"value": token}
                        )
                    order.append(int(token))
                game_services.start_order_set(
                    actor=actor, stage=stage, order=order, draw=action == "draw"
                )
                messages.success(request, _("Start order of stage 1 saved."))
            else:  # a form of this page always says which; nothing to do otherwise
                raise InvalidInput(_("Add a stage or set the start order: nothing was saved."))
            return redirect("rally-desk", slug=slug)
        except ServiceError as exc:
            errors = [exc.message] + [
                m for msgs in exc.errors.values() for m in msgs if m != exc.message
            ]
            status = exc.status
    context = rally_context(event)
    if errors and request.POST.get("action") == "snow":
        # A refused snow form keeps the dice ticked.
        for item in context["stages"]:
            if str(item["stage"].number) == request.POST.get("stage"):
                item["snow_zones"] = [
                    (zone, bool(request.POST.get(f"zone-{i}")))
                    for i, zone in enumerate(item["zones"])
                ]
    first = Stage.objects.filter(event=event, number=1).first()
    context.update(
        {
            "errors": errors,
            "next_number": len(context["stages"]) + 1,
            "order_text": request.POST.get("order")
            if errors
            else " ".join(str(n) for n in (first.start_order if first else [])),
            "posted": request.POST if errors else {},
        }
    )
    return render(request, "games/rally_desk.html", context, status=status)


@require_http_methods(["GET", "POST"])
def stage_times(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """One row per starter: chrono mm:ss, seconds tokens held, retired, intermediate times."""
    event = _rally_event(request, slug)
    stage = get_object_or_404(Stage, event=event, number=number)
    drivers = {d.number: d for d in game_services.rally_drivers(event)}
    starters = [n for n in game_services.start_order_of(stage) if n in drivers]
    records = {t.driver.number: t for t in stage.times.all().select_related("driver")}
    tyre_choice, tyres_before = game_services.tyre_choice(stage)
    errors: list[str] = []
    row_errors: dict[str, list[str]] = {}
    status = 200
    if request.method == "POST":
        times = {}
        for n in starters:
            chrono = (request.POST.get(f"chrono-{n}") or "").strip()
            held = (request.POST.get(f"held-{n}") or "").strip()
            retired = bool(request.POST.get(f"retired-{n}"))
            # Intermediate times typed as "02:10 04:05" (commas or semicolons too).
            splits = (request.POST.get(f"splits-{n}") or "").replace(",", " ").replace(";", " ")
            if not (chrono or retired):
                continue
            held_value: Any = 0
            if held:
                held_value = (
                    int(held) if held.isascii() and held.isdigit() and len(held) < 6 else -1
                )
            times[n] = {
                "chrono": chrono,
                "seconds_held": held_value,
                "retired": retired,
                "splits": splits.split()[:50],
                "tyres": (request.POST.get(f"tyres-{n}") or "").strip()[:10] or None,
            }
        try:
            game_services.stage_times_set(actor=actor_for(request), stage=stage, times=times)
        except ServiceError as exc:
            errors = [exc.message] + [
                m for msgs in exc.errors.values() for m in msgs if m != exc.message
            ]
            row_errors = exc.errors
            status = exc.status
        else:
            messages.success(
                request, _("Times of stage %(number)s saved.") % {"number": stage.number}
            )
            return redirect("rally-stage-times", slug=slug, number=number)
    rows = []
    for position, n in enumerate(starters, start=1):
        record = records.get(n)
        if request.method == "POST":
            values = {
                "chrono": request.POST.get(f"chrono-{n}", ""),
                "held": request.POST.get(f"held-{n}", ""),
                "retired": bool(request.POST.get(f"retired-{n}")),
                "splits": request.POST.get(f"splits-{n}", ""),
                "tyres": request.POST.get(f"tyres-{n}", ""),
            }
        else:
            values = {
                "chrono": rallyman.format_chrono(record.chrono) if record else "",
                "held": record.seconds_held if record and record.seconds_held else "",
                "retired": bool(record and record.retired),
                "splits": " ".join(rallyman.format_chrono(t) for t in record.splits or [])
                if record
                else "",
                "tyres": (record.tyres if record else "") or tyres_before.get(n, ""),
            }
        rows.append(
            {
                "position": position,
                "driver": drivers[n],
                "values": values,
                "errors": row_errors.get(str(n), []),
            }
        )
    return render(
        request,
        "games/stage_times.html",
        {
            "event": event,
            "stage": stage,
            "rows": rows,
            "errors": errors,
            "snowy": game_services.snowy_zones(stage),
            "tyre_choice": tyre_choice,
        },
        status=status,
    )


def rally_classification(request: HttpRequest, slug: str) -> HttpResponse:
    """Stage scratches, re-classifications and the final: public once results are published."""
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    if event.game != Event.Game.RALLYMAN:
        raise Http404(_("This event is not a rally."))
    if not (event.published_results or actor_for(request).can_desk(event.championship)):
        raise Http404(_("The organisers have not published the results yet."))
    return render(request, "games/rally_classification.html", rally_context(event))


def rally_sheet(request: HttpRequest, slug: str) -> HttpResponse:
    """The race-control sheet, FEUILLE P.C. COURSE (organisers; everyone once published)."""
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    if event.game != Event.Game.RALLYMAN:
        raise Http404(_("This event is not a rally."))
    organiser = actor_for(request).can_desk(event.championship)
    if not (event.published_results or organiser):
        raise Http404(_("The organisers have not published the results yet."))
    pdf = RallySheet().render(game_services.rally_sheet_data(event=event, public=not organiser))
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{event.slug}-pc-course.pdf"'
    return response


def table_snow(event: Event) -> dict[str, Any]:
    """What a race table's page shows of the rally (Règlement+): each stage's snowy zones,
    the same for every game (``races.variants``: ``table_context``)."""
    return {
        "rally_snow": [
            {
                "number": stage.number,
                "route": stage.route,
                "drawn": bool(stage.snow),
                "snowy": [
                    zone
                    for zone, snowy in zip(
                        rallyman.route_zones(stage.route), stage.snow or [], strict=False
                    )
                    if snowy
                ],
            }
            for stage in Stage.objects.filter(event=event).order_by("number")
        ]
    }

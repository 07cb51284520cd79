"""Race control's pages of sign-up: the announcement (place, schedule, seats, window) and
the list of registrations (status, rank, counts against capacity, filters, CSV/XLSX,
decisions with reasons, messages, and at a venue without mail each registrant's link and
QR code to hand over). The desk keeps the list's door (check-in, present, closing check-in,
the door's seats); the rest is the organisers'."""

from __future__ import annotations

import json
import re
from typing import Any

import django_tables2 as tables
from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _l
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from tournament.access import Actor, actor_for, desk_event, organised_event
from tournament.documents.printing import QR_QUIET_ZONE, qr_modules
from tournament.errors import InvalidInput, ServiceError
from tournament.models import Event
from tournament.players import erasure
from tournament.players.matching import DriverMatch
from tournament.registration.forms import apply_errors
from tournament.registration.tables import sorted_or_exported
from tournament.signup import broadcast, checkin, selectors, services, tasks
from tournament.signup.announcement import announcement_update
from tournament.signup.forms import AnnouncementForm, DecisionForm, MessageForm
from tournament.signup.models import Announcement, Mail, Registration


@require_http_methods(["GET", "POST"])
def announcement_page(request: HttpRequest, slug: str) -> HttpResponse:
    event = organised_event(request, slug)
    instance = Announcement.objects.filter(event=event).first() or Announcement(event=event)
    form = AnnouncementForm(request.POST if request.method == "POST" else None, instance=instance)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            announcement_update(
                actor=actor_for(request),
                event=event,
                place=data["place"],
                fee=data["fee"],
                capacity=data["capacity"],
                starts_at=data["starts_at"].strftime("%H:%M") if data["starts_at"] else None,
                schedule=data["schedule_lines"],
                mail_tables=data["mail_tables"],
                registration={
                    "opens_at": data["opens_at"],
                    "closes_at": data["closes_at"],
                    "edit_until": data["edit_until"],
                    "approval": data["approval"],
                },
            )
        except ServiceError as exc:
            apply_errors(form, exc)
        else:
            messages.success(request, _("Announcement saved."))
            return redirect("signup-desk", slug=event.slug)
    return render(request, "signup/announcement.html", {"event": event, "form": form})


def qr_svg(link: str) -> SafeString:
    """``link`` as an inline SVG QR code (the printing toolkit's modules)."""
    modules = qr_modules(link)
    size = len(modules) + 2 * QR_QUIET_ZONE
    rects = "".join(
        f'<rect x="{x + QR_QUIET_ZONE}" y="{y + QR_QUIET_ZONE}" width="1" height="1"/>'
        for y, row in enumerate(modules)
        for x, value in enumerate(row)
        if value == 0
    )
    return mark_safe(  # noqa: S308 - numbers only, built here
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" width="200" '
        f'height="200" shape-rendering="crispEdges" role="img"><rect width="100%" '
        f'height="100%" fill="#fff"/><g fill="#000">{rects}</g></svg>'
    )


class RegistrationTable(tables.Table):
    """The list as a spreadsheet (``?_export=csv|xlsx``, through the safe exporters)."""

    rank = tables.Column(verbose_name=_l("Rank"), default="")
    status = tables.Column(verbose_name=_l("Status"))
    first_name = tables.Column(verbose_name=_l("First name"))
    last_name = tables.Column(verbose_name=_l("Last name"))
    email = tables.Column(verbose_name=_l("Email"))
    licence = tables.Column(verbose_name=_l("Licence number"), default="")
    team = tables.Column(verbose_name=_l("Team"), default="")
    #: Local time to the minute, as race control reads it (not UTC with microseconds).
    confirmed_at = tables.Column(verbose_name=_l("confirmed at"), default="")


def _local_minute(when: Any) -> str:
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M") if when else ""


def _table(rows: list[tuple[Registration, int | None]]) -> RegistrationTable:
    return RegistrationTable(
        [
            {
                "rank": rank,
                "status": r.get_status_display(),
                "first_name": r.first_name,
                "last_name": r.last_name,
                "email": r.email,
                "licence": r.licence,
                "team": r.team,
                "confirmed_at": _local_minute(r.confirmed_at),
            }
            for r, rank in rows
        ]
    )


def _post(request: HttpRequest, event: Any) -> HttpResponse | dict[str, Any]:
    actor = actor_for(request)
    action = request.POST.get("action")
    if action == "message":
        form = MessageForm(request.POST)
        if form.is_valid():
            message = broadcast.message_send(event=event, actor=actor, **form.cleaned_data)
            messages.success(
                request, _("Message queued for %(count)s registrants.") % {"count": message.queued}
            )
            return redirect(request.get_full_path())
        return {"message_form": form}
    if action == "send":
        count = tasks.send_queued(event_id=event.pk)
        messages.success(request, _("%(count)s mails handed to the sender.") % {"count": count})
        return redirect(request.get_full_path())
    if action == "close":
        if not request.POST.get("confirm"):
            # Irreversible: race control reads who is absent and who moves in, then confirms.
            return {"closing": checkin.check_in_preview(event=event, actor=actor)}
        closing = checkin.check_in_close(event=event, actor=actor)
        absent = len(closing.absent)
        messages.success(
            request,
            ngettext(
                "Check-in closed: %(count)s registrant absent.",
                "Check-in closed: %(count)s registrants absent.",
                absent,
            )
            % {"count": absent},
        )
        _took_seats(request, len(closing.moved_in))
        return redirect(request.get_full_path())
    if action == "admit":
        _took_seats(request, len(checkin.door_admit(event=event, actor=actor)))
        return redirect(request.get_full_path())
    # The row's id as the forms send it; anything else (abc, 1.5, nothing) names no row.
    raw_id = request.POST.get("id", "")
    if not _NUMBER.fullmatch(raw_id):
        raise Http404(_("Unknown registration."))
    registration = get_object_or_404(Registration, event=event, pk=int(raw_id))
    registration.event = event
    if action == "checkin":
        return _check_in(request, registration, actor)
    if action == "export":
        body = json.dumps(selectors.registration_export(registration), ensure_ascii=False, indent=1)
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="registration-{registration.pk}.json"'
        )
        return response
    if action == "erase":
        return _erase(request, registration, actor)
    if action == "present":
        checkin.present_set(reg=registration, actor=actor, present=not registration.present)
        return redirect(request.get_full_path())
    if action == "link":
        # The link already mailed (sealed copy); a new one only where no key opens it.
        link = services.own_link(registration) or services.own_link_renew(
            registration=registration, actor=actor
        )
        return {"handover": {"registration": registration, "link": link, "qr": qr_svg(link)}}
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a decision and say why."))
        return redirect(request.get_full_path())
    data = form.cleaned_data
    if data["status"] == Registration.Status.REFUSED and not form.cleaned_data["confirm"]:
        # A refusal mails the person its reason: race control reads it once more, and
        # confirms (a second form, no script: the CSP has none).
        return {"refusal": {"registration": registration, "reason": data["reason"]}}
    data.pop("confirm")
    if data["status"] == Registration.Status.CANCELLED:
        services.registration_cancel(registration=registration, actor=actor, reason=data["reason"])
    else:
        services.registration_decide(registration=registration, actor=actor, **data)
    messages.success(request, _("Saved: %(name)s.") % {"name": registration})
    return redirect(request.get_full_path())


_NUMBER = re.compile(r"[0-9]{1,9}")


def _took_seats(request: HttpRequest, count: int) -> None:
    if count:
        messages.success(
            request,
            ngettext(
                "%(count)s registrant took a seat at the door.",
                "%(count)s registrants took a seat at the door.",
                count,
            )
            % {"count": count},
        )


def _side_by_side(registration: Registration, match: DriverMatch) -> dict[str, Any]:
    """One proposed driver beside the registrant: each line, both values, and whether they
    are the same (licence, address and folded name are the evidence)."""
    driver = match.driver
    lines = [
        (_("Name"), str(registration), driver.name, "name" in match.reasons),
        (
            _("Folded name"),
            registration.name_key or "",
            match.folded,
            "name" in match.reasons,
        ),
        (_("Email"), registration.email, match.email, "email" in match.reasons),
        (_("Licence number"), registration.licence, match.licence, "licence" in match.reasons),
        (_("Team"), registration.team, driver.team.name if driver.team_id else "", False),
    ]
    return {"driver": driver, "lines": lines}


def _check_in(request: HttpRequest, registration: Registration, actor: Actor) -> Any:
    """Check in; where drivers of the championship may be this registrant, race control
    first reads them side by side and confirms one, or says it is someone else."""
    paid = bool(request.POST.get("paid"))
    if not request.POST.get("decided"):
        matches = checkin.proposals_for(registration)
        if matches:
            return {
                "proposal": {
                    "registration": registration,
                    "paid": paid,
                    "matches": [_side_by_side(registration, m) for m in matches],
                }
            }
    join = request.POST.get("join", "")
    entry = checkin.registration_check_in(
        reg=registration,
        actor=actor,
        paid=paid,
        join=int(join) if _NUMBER.fullmatch(join) else None,
    )
    if entry is None:
        messages.warning(
            request,
            _("No free seat: %(name)s waits at the door, at the end of the line.")
            % {"name": registration},
        )
    else:
        messages.success(
            request,
            _("%(name)s checked in as n° %(number)s.")
            % {"name": registration, "number": entry.driver.number},
        )
    return redirect(request.get_full_path())


def _erase(request: HttpRequest, registration: Registration, actor: Actor) -> Any:
    """Erase on request: race control first reads what goes (every driver of the person in
    the club's championships, none of another club's), then confirms."""
    reason = request.POST.get("reason", "").strip()
    if not reason:
        raise InvalidInput(_("Say why."), {"reason": [_("This field is required.")]})
    if not request.POST.get("confirm"):
        services.require_organiser(actor, registration.event)
        person = erasure.person_of(registration, actor=actor)
        return {"erasure": {"registration": registration, "reason": reason, "person": person}}
    erasure.person_erase(registration=registration, actor=actor, reason=reason)
    registration.refresh_from_db()
    messages.success(request, _("Erased: %(name)s.") % {"name": erasure.erased_name(registration)})
    return redirect(request.get_full_path())


def _failed_mails(event: Event) -> dict[int, str]:
    """Each registration's mail that failed for good: what the mail server said."""
    failed = Mail.objects.filter(registration__event=event, state=Mail.State.FAILED)
    return dict(failed.order_by("pk").values_list("registration", "last_error"))


#: What the desk does at the door (DOMAIN.md "Clubs and who may do what": the day's
#: counter, check-in included); every other action of this page is the organisers'.
DOOR_ACTIONS = frozenset({"checkin", "present", "close", "admit"})


@require_http_methods(["GET", "POST"])
def registrations_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The list and the door: the desk and the organisers. Decisions, messages, mails sent
    again, links, a person's export and erasure: the organisers only (403 to the desk)."""
    event = desk_event(request, slug)
    extra: dict[str, Any] = {}
    if request.method == "POST":
        if request.POST.get("action") not in DOOR_ACTIONS:
            organised_event(request, slug)
        try:
            answer = _post(request, event)
        except ServiceError as exc:
            messages.error(request, exc.message)
            return redirect(request.get_full_path())
        if isinstance(answer, HttpResponse):
            return answer
        extra = answer
    rows = selectors.ranked(event)
    shown = request.GET.get("status", "")
    if shown in Registration.Status.values:
        rows = [(r, k) for r, k in rows if r.status == shown]
    exported = sorted_or_exported(request, _table(rows), f"{event.slug}-registrations")
    if exported:
        return exported
    counts = dict(
        Registration.objects.filter(event=event)
        .values_list("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    queued = dict(
        Mail.objects.filter(registration__event=event, state=Mail.State.QUEUED)
        .values_list("registration")
        .annotate(n=Count("pk"))
        .values_list("registration", "n")
    )
    announcement = Announcement.objects.filter(event=event).first()
    failed = _failed_mails(event)
    context = {
        "event": event,
        # The desk sees the list and the door; the organisers' forms only to them.
        "can_organise": actor_for(request).can_organise(event.championship),
        "announcement": announcement,
        "rows": [(r, k, queued.get(r.pk, 0), failed.get(r.pk)) for r, k in rows],
        "counts": counts,
        "statuses": Registration.Status.choices,
        "shown": shown,
        "decision_form": DecisionForm(),
        "message_form": MessageForm(),
        "sent_log": broadcast.messages_of(event),
        "door": checkin.door_candidates(event),
        "mails_leave": tasks.mails_leave(),
        "queued_total": sum(queued.values()),
        "failed_total": Mail.objects.filter(
            Q(registration__event=event) & Q(state=Mail.State.FAILED)
        ).count(),
        # "Check in" from the event's day on, not weeks before it.
        "door_open": timezone.localdate() >= event.date,
        **extra,
    }
    return render(request, "signup/desk.html", context)

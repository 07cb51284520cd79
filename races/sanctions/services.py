"""Writes of sanctions (§1-2-3: "l'organisateur décidera des conséquences à donner"):
recorded with a reason, who and when; withdrawn with a reason; every confirmed place,
rank and point of the event computed again at once.

What each kind needs and does is the pure ``races.sanctions.rules``; here we check who
acts, validate, save, record, and score the event again.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from qualifying.models import QualifyingSession, Run
from races import variants
from races.grid.state import checked_reason
from races.results.services import event_rescore
from races.sanctions import rules as sanction_rules
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput
from tournament.models import Driver, Event, Sanction
from tournament.registration.services import require_organiser
from tournament.signals import results_changed_soon


def _problem_messages(problems: list[sanction_rules.SanctionProblem]) -> dict[str, list[str]]:
    texts = {
        "bad_kind": _("A sanction is a warning, throws, points or a disqualification."),
        "value_required": _("Say how many throws or points (a whole number from 1 to %(max)s)."),
        "value_not_allowed": _("A warning or a disqualification takes no number."),
        "session_required": _("Say which qualifying session's run gets the throws."),
        "session_not_allowed": _("Only throws concern a qualifying session."),
        "reason_required": _("Say why: every sanction has a reason."),
        "reason_too_long": _("The reason is too long (200 characters at most)."),
    }
    errors: dict[str, list[str]] = {}
    for problem in problems:
        text = texts[problem.kind] % {"max": sanction_rules.MAX_VALUE}
        errors.setdefault(problem.field, []).append(text)
    return errors


def _rescore(event: Event) -> None:
    """Every stored place of the event, with the sanctions in force (inside the caller's
    transaction): the race tables, or the game's own classification (a rally's)."""
    hook = variants.variant_of(event.game).event_rescore
    if hook is not None:
        hook(event=event)
    else:
        event_rescore(event=event)
    if event.published_results:  # a disqualification changes a table's order
        results_changed_soon(event.family)


def sanction_record(
    *,
    actor: Actor,
    event: Event,
    driver: int,
    kind: str,
    reason: str,
    value: int | None = None,
    session: int | None = None,
) -> Sanction:
    """Record a sanction the organisers decided (§1-2-3) against driver number ``driver``.

    ``throws`` adds ``value`` throws to the driver's run of ``session`` (the driver must
    have run there); ``points`` removes ``value`` points for the event; ``disqualified``
    classes the driver last of the event with 0 points. Places, ranks and points of the
    event's confirmed tables are computed again at once.
    """
    require_organiser(actor, event.championship)
    problems = sanction_rules.sanction_problems(
        kind=kind, value=value, session=session, reason=reason
    )
    if problems:
        errors = _problem_messages(problems)
        raise InvalidInput(next(iter(errors.values()))[0], errors)
    found = Driver.objects.filter(championship=event.championship, number=driver).first()
    if found is None or not event.entries.filter(driver=found).exists():
        message = _("Driver %(number)s is not registered for this event.") % {"number": driver}
        raise InvalidInput(message, {"driver": [message]})
    if kind == "throws":
        session_row = QualifyingSession.objects.filter(event=event, number=session).first()
        if session_row is None:
            message = _("This event has no qualifying session %(number)s.") % {"number": session}
            raise InvalidInput(message, {"session": [message]})
        if not Run.objects.filter(session=session_row, driver=found, cancelled=False).exists():
            message = _("%(driver)s has no run in session %(number)s to add throws to.") % {
                "driver": f"{found.number} {found.name}",
                "number": session,
            }
            raise InvalidInput(message, {"session": [message]})
    with transaction.atomic():
        sanction = Sanction(
            event=event,
            driver=found,
            kind=kind,
            value=value if kind in ("throws", "points") else None,
            session=session if kind == "throws" else None,
            reason=checked_reason(reason),
            user=actor.user if actor.is_authenticated else None,
            actor=actor.label,
        )
        actor.stamp(sanction).save()
        _rescore(event)
    return sanction


def sanction_withdraw(*, actor: Actor, sanction: Sanction, reason: str) -> Sanction:
    """Withdraw a sanction, saying why: it no longer applies and stays listed; the event's
    places, ranks and points are computed again."""
    event = sanction.event
    require_organiser(actor, event.championship)
    reason = checked_reason(reason, required=True, message=_("Say why the sanction is withdrawn."))
    with transaction.atomic():
        sanction = Sanction.objects.select_for_update().get(pk=sanction.pk)
        if not sanction.in_force:
            raise Conflict(_("This sanction is already withdrawn."))
        sanction.withdrawn_at = timezone.now()
        sanction.withdrawn_by = actor.label
        sanction.withdraw_reason = reason
        sanction._change_reason = reason  # type: ignore[attr-defined]
        actor.stamp(sanction).save()
        _rescore(event)
    return sanction

"""Who is acting: a logged-in user, an API token's user, a table's referee link, or nobody;
and what they may open (ground floor: no model of qualifying or races is imported here).

The tables that referee links open belong to the floors above (qualifying, races): each of
those apps tells this module how to find its tables by link, in its ``AppConfig.ready()``.
A link is looked up by its digest (``tournament.sealing``): the database never holds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from tournament import sealing
from tournament.clubs import rights
from tournament.errors import LinkReplaced
from tournament.models import Event
from tournament.site import ratelimit


@dataclass(frozen=True)
class Actor:
    """The person behind a request, as services need to know it."""

    user: Any = None
    #: The qualifying or race table whose referee link was used, if any.
    table: Any = None
    via: str = ""
    #: The name a referee holding a table's link gave once (``remember_referee_name``).
    name: str = ""

    @classmethod
    def anonymous(cls) -> Actor:
        return cls()

    @property
    def is_authenticated(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    @property
    def label(self) -> str:
        """Who, in words, for the history of a change."""
        if self.table is not None:
            if self.name:
                return _("%(name)s (referee link of %(table)s)") % {
                    "name": self.name,
                    "table": self.table,
                }
            return _("referee link of %(table)s") % {"table": self.table}
        if self.is_authenticated:
            return self.user.get_username() + (f" ({self.via})" if self.via else "")
        return _("anonymous")

    def is_superuser(self) -> bool:
        return self.is_authenticated and self.user.is_superuser

    def _person(self) -> Any:
        """The user acting in their own name (None for a table link or nobody)."""
        return self.user if self.table is None and self.is_authenticated else None

    def can_organise(self, championship: Any) -> bool:
        """True when this actor runs ``championship``: a superuser, its club's owner or
        organiser, one of its guest organisers (never a table link)."""
        return rights.may_organise(self._person(), championship)

    def can_desk(self, championship: Any) -> bool:
        """True when this actor may keep ``championship``'s counter on the day (entries,
        check-in, runs, results entered and confirmed, sheets): its club's desk members and
        whoever organises it."""
        return rights.may_desk(self._person(), championship)

    def role_in(self, club: Any) -> str | None:
        """This actor's role in ``club`` (``owner``, ``organiser``, ``desk``), or None."""
        return rights.role_in(self._person(), club)

    def can_run_club(self, club: Any) -> bool:
        """Create ``club``'s championships and circuits, change its circuits, name guest
        organisers: its owners and organisers (a superuser too)."""
        return rights.may_run_club(self._person(), club)

    def can_manage_people(self, club: Any) -> bool:
        """Invite, change roles, remove members of ``club``: its owners (a superuser too)."""
        return rights.may_manage_people(self._person(), club)

    def can_referee(self, table: Any) -> bool:
        """True when this actor may write ``table``: its link, its referee, the desk or an
        organiser of its championship."""
        if self.table is not None:
            return type(self.table) is type(table) and self.table.pk == table.pk
        if self.is_authenticated and getattr(table, "referee_id", None) == self.user.pk:
            return True
        return self.can_desk(table.event.championship)

    def stamp(self, instance: models.Model) -> models.Model:
        """Mark ``instance`` so the next history row says who made the change."""
        if self.is_authenticated:
            instance._history_user = self.user  # type: ignore[attr-defined]
        instance._history_actor = self.label  # type: ignore[attr-defined]
        return instance


def actor_for(request: HttpRequest) -> Actor:
    """The actor of a page request: the logged-in user, or nobody."""
    return Actor(user=request.user) if request.user.is_authenticated else Actor.anonymous()


def organised_event(request: HttpRequest, slug: str) -> Event:
    """The event, if the user organises its championship; 404 / PermissionDenied otherwise
    (a desk member is told the page is the organisers')."""
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    actor = actor_for(request)
    if not actor.can_organise(event.championship):
        if not request.user.is_authenticated:
            raise PermissionDenied(_("Log in as an organiser of this championship."))
        if actor.can_desk(event.championship):
            raise PermissionDenied(
                _("The desk keeps the day's counter: this page is for the organisers.")
            )
        raise PermissionDenied(_("You are not an organiser of this championship."))
    return event


def desk_event(request: HttpRequest, slug: str) -> Event:
    """The event, if the user keeps its counter (the desk) or organises its championship;
    404 / PermissionDenied otherwise."""
    event = get_object_or_404(Event.objects.select_related("championship", "circuit"), slug=slug)
    if not actor_for(request).can_desk(event.championship):
        if not request.user.is_authenticated:
            raise PermissionDenied(_("Log in as an organiser of this championship."))
        raise PermissionDenied(_("You are not an organiser of this championship."))
    return event


def table_actor(request: HttpRequest, table: Any) -> Actor:
    """Who acts on a table's pages: the desk, an organiser or the table's referee account
    under their own name; anyone else holding the link acts as the link."""
    actor = actor_for(request)
    if actor.can_desk(table.event.championship):
        return actor
    if actor.is_authenticated and table.referee_id == actor.user.pk:
        return actor
    return Actor(table=table, name=referee_name(request, table))


#: The longest name a referee may give for the trail (the history column holds 120).
REFEREE_NAME_MAX = 40


def _name_key(table: Any) -> str:
    return f"referee-name:{table._meta.label_lower}:{table.pk}"


def referee_name(request: HttpRequest, table: Any) -> str:
    """The name the person holding ``table``'s link gave on this device, or ""."""
    session = getattr(request, "session", None)
    return str(session.get(_name_key(table), "")) if session is not None else ""


def remember_referee_name(request: HttpRequest, table: Any, name: str) -> str:
    """Keep ``name`` (trimmed, control characters out) for this device's session: the trail
    then says who held the link. An empty name forgets it. Answers the name kept."""
    cleaned = " ".join("".join(ch for ch in name if ch.isprintable()).split())[:REFEREE_NAME_MAX]
    if cleaned:
        request.session[_name_key(table)] = cleaned
    else:
        request.session.pop(_name_key(table), None)
    return cleaned


def label_in_language(stored: str, tables: Iterable[Any]) -> str:
    """A history's "who" in the page's language.

    A referee link's label is stored in the language of the page that wrote it ("lien
    commissaire (Table d’essais 1)"); read back for one of ``tables``, in any language of
    the site, it is said again in the active one. Anything else is shown as stored.
    """
    tables = list(tables)
    for code, _language in settings.LANGUAGES:
        with translation.override(code):
            found = _match_label(stored, tables)
        if found is not None:
            table, name = found
            return Actor(table=table, name=name).label  # in the active language
    return stored


def _straight(text: str) -> str:
    """Apostrophes made straight: a label stored before the French translation took the
    typographic one ("Table d'essais 1") still reads as the same table's."""
    return text.replace("\u2019", "'")


def _match_label(stored: str, tables: list[Any]) -> tuple[Any, str] | None:
    """The table (and name) whose link label, in the active language, is ``stored``,
    apostrophes aside (the name as stored)."""
    straight = _straight(stored)  # as long as ``stored``: the name's span is the same
    for table in tables:
        if straight == _straight(_("referee link of %(table)s") % {"table": table}):
            return table, ""
        named = re.fullmatch(
            re.escape(_straight(_("%(name)s (referee link of %(table)s)")))
            .replace(re.escape("%(name)s"), "(?P<name>.+)")
            .replace(re.escape("%(table)s"), re.escape(_straight(str(table)))),
            straight,
        )
        if named:
            return table, stored[named.start("name") : named.end("name")]
    return None


# --- Referee links: which table a link's secret opens --------------------------------------

_TABLE_FINDERS: list[Callable[[str], Any]] = []
_REPLACED_CHECKS: list[Callable[[str], bool]] = []
_REFEREE_CHECKS: list[Callable[[Any, Event], bool]] = []


def register_links(
    *,
    find: Callable[[str], Any] | None = None,
    replaced: Callable[[str], bool] | None = None,
    refereed: Callable[[Any, Event], bool] | None = None,
) -> None:
    """An app with tables says how to find one by its link's digest (``find``: the table or
    None), whether a digest is an old, replaced link's (``replaced``) and whether a user referees
    one of its tables at an event (``refereed``). Called once per app at start-up
    (``AppConfig.ready()``), in the order of ``INSTALLED_APPS``."""
    for hook, hooks in ((find, _TABLE_FINDERS), (replaced, _REPLACED_CHECKS)):
        if hook is not None and hook not in hooks:
            hooks.append(hook)  # type: ignore[arg-type]
    if refereed is not None and refereed not in _REFEREE_CHECKS:
        _REFEREE_CHECKS.append(refereed)


def referees_a_table(user: Any, event: Event) -> bool:
    """True when ``user``'s account referees one of ``event``'s tables (any kind)."""
    return any(refereed(user, event) for refereed in _REFEREE_CHECKS)


def table_for_link(token: str) -> Any:
    """The qualifying or race table whose referee link is ``token``, or None."""
    digest = sealing.link_digest(token)
    for find in _TABLE_FINDERS:
        table = find(digest)
        if table is not None:
            return table.opened_with(token)
    return None


def link_was_replaced(token: str) -> bool:
    """True for a referee link that race control replaced by a new one."""
    digest = sealing.link_digest(token)
    return any(replaced(digest) for replaced in _REPLACED_CHECKS)


def replaced_or_404(token: str, request: HttpRequest | None = None) -> None:
    """An old referee link gets a clear page (LinkReplaced) rather than a bare 404.

    An unknown link counts as a failure of the address; past the limit it gets a 429
    (``tournament.site.ratelimit``). Valid links are never limited.
    """
    if link_was_replaced(token):
        raise LinkReplaced()
    if request is not None:
        ratelimit.check(request)
        ratelimit.record_failure(request)
    raise Http404(_("Unknown table link."))


def last_saved(record: Any, tables: Iterable[Any] = ()) -> dict[str, str]:
    """Who saved ``record`` last and at what time (``{"who": ..., "time": "14:05"}``), read
    from its history; a referee link's label is said in the page's language."""
    history = record.history if record is not None else None
    latest = (
        history.order_by("-history_date").select_related("history_user").first()
        if history
        else None
    )
    if latest is None:
        return {"who": _("someone"), "time": "—"}
    who = label_in_language(latest.history_actor, tables) if latest.history_actor else ""
    if not who and latest.history_user is not None:
        who = latest.history_user.get_username()
    when = formats.time_format(timezone.localtime(latest.history_date), "H:i")
    return {"who": who or _("someone"), "time": when}

"""The mails of sign-up: each change writes its row in the outbox (``Mail``) in the same
transaction: its kind, its registrant, its language, its subject and the facts its words
need (a waiting rank, a reason, a table). Its text and HTML bodies, naming the event and the
link, are rendered in that language when it leaves (``bodies``, called by ``tasks.py``): a
rush of sign-ups spends its requests on the seats, not on templates. Sending is
``tasks.py``'s job; nothing here talks to a mail server.

A link opens a registration: no row holds it as it is (API.md, "Secrets … are never stored
as they are"). The bodies keep ``LINK`` in its place, the link itself is sealed beside them
(``Mail.link_sealed``, ``tournament.sealing``), and ``bodies_as_sent`` writes it in when the
mail leaves. A subject is one line: a line break in an event's name would make every mail of
that event a header the mail library refuses."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.mail import make_msgid
from django.template.loader import render_to_string
from django.utils import formats, translation
from django.utils.html import escape
from django.utils.translation import gettext as _

from tournament.sealing import seal, unseal
from tournament.signup.models import Mail, Message, Registration

Kind = Mail.Kind


def confirm_url(secret: str) -> str:
    return f"{settings.SITE_URL.rstrip('/')}/registrations/confirm/{secret}/"


def own_url(secret: str) -> str:
    return f"{settings.SITE_URL.rstrip('/')}/registrations/{secret}/"


def _next_key(registration: Registration, key: str, *, first: bool = False) -> str:
    """``key`` the first time, then ``key:2``, ``key:3``…: one row per change told.
    ``first``: the caller knows the registration has no mail of this key yet (a new one)."""
    if first:
        return key
    taken = set(
        Mail.objects.filter(registration=registration, key__startswith=key).values_list(
            "key", flat=True
        )
    )
    if key not in taken:
        return key
    n = 2
    while f"{key}:{n}" in taken:
        n += 1
    return f"{key}:{n}"


def _texts(registration: Registration, kind: str, facts: dict[str, Any]) -> tuple[str, list[str]]:
    """The subject and paragraphs of one kind of mail, in the active language."""
    event = registration.event
    names = {"event": event.name, "date": formats.date_format(event.date, "DATE_FORMAT")}
    if kind == Kind.CONFIRM:
        return _("Confirm your registration for %(event)s") % names, [
            _(
                "You asked for a seat at %(event)s on %(date)s. Open the link below and press "
                "the button to confirm your address: your registration counts from then on."
            )
            % names,
            _("The link works for 24 hours. If you did not sign up, ignore this mail."),
        ]
    if kind == Kind.ACCEPTED:
        return _("You are in: %(event)s") % names, [
            _("Your seat at %(event)s on %(date)s is confirmed.") % names,
        ]
    if kind == Kind.WAITING:
        return _("Waiting list: %(event)s") % names, [
            _(
                "%(event)s is full. You are n° %(rank)s on the waiting list: if a seat frees "
                "up, you move in and we tell you."
            )
            % {**names, "rank": facts.get("rank", "?")},
        ]
    if kind == Kind.MOVED_IN:
        return _("A seat freed up: you are in (%(event)s)") % names, [
            _("A seat freed up at %(event)s on %(date)s: it is yours.") % names,
        ]
    if kind == Kind.REFUSED:
        return _("Registration refused: %(event)s") % names, [
            _("Race control could not accept your registration for %(event)s.") % names,
            _("Reason: %(reason)s") % {"reason": facts.get("reason", "")},
        ]
    if kind == Kind.CANCELLED:
        lines = [_("Your registration for %(event)s is cancelled.") % names]
        if facts.get("reason"):
            lines.append(_("Reason: %(reason)s") % {"reason": facts["reason"]})
        return _("Registration cancelled: %(event)s") % names, lines
    if kind == Kind.TABLE:
        return _("Your table: %(event)s") % names, [
            _("The tables of %(event)s are out: you race at table %(table)s.")
            % {**names, "table": facts.get("table", "?")},
        ]
    if kind == Kind.RESULTS:
        return _("Results published: %(event)s") % names, [
            _("The results of %(event)s are published. Thank you for racing!") % names,
        ]
    if kind == Kind.REMINDER:
        announcement = getattr(event, "announcement", None)
        lines = [_("%(event)s is on %(date)s. See you there!") % names]
        if announcement is not None and announcement.place:
            lines.append(_("Place: %(place)s") % {"place": announcement.place})
        for step in getattr(announcement, "schedule", None) or []:
            lines.append(f"{step['time']} {step['label']}")
        return _("Reminder: %(event)s") % names, lines
    if kind == Kind.MESSAGE:
        return str(facts["subject"]), [str(facts["body"])]
    if facts.get("pending"):
        return _("Awaiting race control: %(event)s") % names, [
            _(
                "Your address is confirmed. Race control accepts each entry of %(event)s: "
                "you will be told its decision."
            )
            % names,
        ]
    return _("Your registration for %(event)s") % names, [
        _("Here is the link to your registration for %(event)s on %(date)s.") % names,
    ]


#: Stands for the waiting list's rank in a mail rendered before the rank is known: the
#: confirmation renders its mail before it takes the seats' lock, and ``save`` puts the rank
#: in under it (a character of Unicode's private use area: no text or escaping makes it).
RANK = "\ue000rank\ue000"
#: Stands for the link in a stored body (the same private use area as ``RANK``).
LINK = "\ue000link\ue000"


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (line breaks included) as one space."""
    return " ".join(text.split())


def _site() -> str:
    return settings.SITE_URL.rstrip("/")


def seal_link(link: str) -> str:
    """``link`` sealed for ``Mail.link_sealed``; a link of this site is sealed without the
    site's address (short whatever ``SITE_URL``), which is put back when the mail leaves."""
    if not link:
        return ""
    if link.startswith(_site() + "/"):
        link = link[len(_site()) :]
    return seal(link)


def link_of(mail: Mail) -> str | None:
    """The link ``mail`` carries ("" for none), or None when no key of this server opens
    the sealed copy."""
    if not mail.link_sealed:
        return ""
    link = unseal(mail.link_sealed)
    if link is None:
        return None
    return _site() + link if link.startswith("/") else link


def bodies_as_sent(mail: Mail) -> tuple[str, str] | None:
    """The text and HTML bodies with the link written in (rendered first if they are not
    yet: ``bodies``), or None when the link cannot be unsealed here (a key changed without
    keeping the old one in ``SECRET_KEY_FALLBACKS``)."""
    link = link_of(mail)
    if link is None:
        return None
    text, html = bodies(mail)
    return text.replace(LINK, link), html.replace(LINK, escape(link))


#: Starts the text body of a mail not rendered yet; the facts its words need follow, as
#: JSON (``render``). Rendered when the mail leaves (``bodies``); a rendered body never
#: starts so (the private use area, as ``RANK``).
LATER = "\ue000later\ue000"


def render(
    registration: Registration,
    kind: str,
    *,
    link: str,
    key: str | None = None,
    message: Message | None = None,
    first: bool = False,
    **facts: Any,
) -> Mail:
    """One mail of ``kind`` to ``registration``, given its key, not saved (``save``): its
    subject in the registrant's language, its bodies left to ``bodies`` (the facts they need
    kept in ``body_text`` until then). ``link``: the URL it carries, sealed apart from the
    bodies (``LINK`` in its place). ``first``: no mail of this key was written to this
    registrant yet (``_next_key``)."""
    language = registration.language or settings.LANGUAGE_CODE
    with translation.override(language):
        subject, _paragraphs = _texts(registration, kind, facts)
    if message is not None:  # a message's words are read from it when the mail leaves
        facts = {k: v for k, v in facts.items() if k not in ("subject", "body")}
    return Mail(
        registration=registration,
        message=message,
        kind=kind,
        key=_next_key(registration, key or kind, first=first),
        to=registration.email,
        language=registration.language,
        subject=one_line(subject)[:250],
        body_text=LATER + json.dumps(facts, ensure_ascii=False, default=str),
        body_html="",
        link_sealed=seal_link(link),
        message_id_header=make_msgid(domain="paddock.invalid"),
    )


def later(mail: Mail) -> bool:
    """True while ``mail``'s bodies are not rendered (``bodies`` renders them)."""
    return mail.body_text.startswith(LATER)


def bodies(mail: Mail) -> tuple[str, str]:
    """The text and HTML bodies of ``mail`` (``LINK`` in place of its link): as stored once
    rendered, else rendered now in the mail's language from its registrant, its event and
    the facts it keeps. Reads the registration, its event and championship (and a
    message's words) unless the caller fetched them."""
    if not later(mail):
        return mail.body_text, mail.body_html
    registration = mail.registration
    facts = json.loads(mail.body_text[len(LATER) :] or "{}")
    if mail.kind == Kind.MESSAGE and mail.message_id is not None:
        facts |= {"subject": mail.message.subject, "body": mail.message.body}
    with translation.override(mail.language or settings.LANGUAGE_CODE):
        _subject, paragraphs = _texts(registration, mail.kind, facts)
        context = {
            "registration": registration,
            # A name typed by whoever signed up: a stranger may type any, with anyone's
            # address. Until that address is confirmed, the mail greets no one by name.
            "name": registration.first_name
            if registration.confirmed_at is not None and mail.kind != Kind.CONFIRM
            else "",
            "event": registration.event,
            "paragraphs": paragraphs,
            "link": LINK if mail.link_sealed else "",
            "link_label": _("Confirm my registration")
            if mail.kind == Kind.CONFIRM
            else _("My registration"),
        }
        text = render_to_string("signup/mail.txt", context)
        html = render_to_string("signup/mail.html", context)
    return text, html


def save(mail: Mail, *, rank: int | None = None) -> Mail:
    """Write a mail in the outbox (the caller's transaction), ``rank`` in place of
    ``RANK``."""
    if rank is not None:
        for name in ("subject", "body_text", "body_html"):
            setattr(mail, name, getattr(mail, name).replace(RANK, str(rank)))
    mail.save(force_insert=True)
    return mail


def queue(
    registration: Registration,
    kind: str,
    *,
    link: str,
    key: str | None = None,
    message: Message | None = None,
    first: bool = False,
    **facts: Any,
) -> Mail:
    """Write one mail of ``kind`` to ``registration`` in the outbox (the caller's
    transaction), to be rendered in the registrant's language as it leaves. ``link``: the
    URL it carries."""
    mail = render(registration, kind, link=link, key=key, message=message, first=first, **facts)
    return save(mail)

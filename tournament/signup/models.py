"""The models of sign-up: an event's announcement, its registrations, the mails they are
sent (one row per registration and kind: sent once) and race control's messages."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from tournament.players.names import name_key
from tournament.signup import rules
from tournament.site.actor import History, HistoryActor


class Announcement(models.Model):
    """What an event announces before the day: place, time, schedule, fee, seats and its
    registration window. One per event, made when first edited (none: sign-up closed)."""

    class Approval(models.TextChoices):
        FIRST_COME = "first_come", _("First come, first served")
        ORGANISER = "organiser", _("Race control accepts each entry")

    event = models.OneToOneField(
        "tournament.Event",
        on_delete=models.CASCADE,
        related_name="announcement",
        verbose_name=_("event"),
    )
    place = models.TextField(_("place"), blank=True, default="")
    starts_at = models.TimeField(_("start time"), null=True, blank=True)
    #: The day's steps: ``[{"time": "HH:MM", "label": "..."}]``.
    schedule = models.JSONField(_("schedule"), default=list, blank=True)
    fee = models.CharField(_("fee"), max_length=200, blank=True, default="")
    #: Seats; null: no limit.
    capacity = models.PositiveIntegerField(_("seats"), null=True, blank=True)
    #: Registration is closed while ``opens_at`` is null.
    opens_at = models.DateTimeField(_("registration opens"), null=True, blank=True)
    closes_at = models.DateTimeField(_("registration closes"), null=True, blank=True)
    edit_until = models.DateTimeField(_("changes allowed until"), null=True, blank=True)
    approval = models.CharField(
        _("approval"), max_length=12, choices=Approval, default=Approval.FIRST_COME
    )
    #: Race control ticks it: each accepted registrant is mailed their table when the
    #: allocation is published.
    mail_tables = models.BooleanField(_("mail each entrant their table"), default=False)
    #: The event away (issue "the event travels"): registrants' addresses go to the laptop
    #: only if race control ticks it.
    emails_travel = models.BooleanField(_("take the addresses to the laptop"), default=False)
    #: Race control closed check-in: accepted registrants not there are absent, waiting
    #: ones present at the door may take their seats.
    check_in_closed_at = models.DateTimeField(_("check-in closed at"), null=True, blank=True)
    history = History(bases=[HistoryActor])

    class Meta:
        verbose_name = _("announcement")
        verbose_name_plural = _("announcements")

    def __str__(self) -> str:
        return str(self.event)


#: The fields the keys of a registration are made of (``Registration.save``).
KEYED = frozenset({"email", "first_name", "last_name", "email_key", "name_key"})


class Registration(models.Model):
    """A person asking a seat at one event. Counts from the confirmation of its address;
    the waiting list is in order of confirmation (``confirmed_at``, then ``pk``)."""

    class Status(models.TextChoices):
        UNCONFIRMED = "unconfirmed", _("unconfirmed")
        ACCEPTED = "accepted", _("accepted")
        WAITING = "waiting", _("waiting")
        PENDING = "pending", _("pending")
        REFUSED = "refused", _("refused")
        CANCELLED = "cancelled", _("cancelled")
        #: Accepted, not there when race control closed check-in: no longer counted.
        ABSENT = "absent", _("absent")

    class PublicName(models.TextChoices):
        FULL = "full", _("Full name")
        SHORT = "short", _("First name and initial")

    event = models.ForeignKey(
        "tournament.Event",
        on_delete=models.CASCADE,
        related_name="registrations",
        verbose_name=_("event"),
    )
    first_name = models.CharField(_("first name"), max_length=100)
    last_name = models.CharField(_("last name"), max_length=100)
    #: Race control's only: never on a public page, answer or log. Empty once erased.
    email = models.EmailField(_("email"), blank=True, default="")
    #: The address as the mail server delivers it (``rules.address_key``: quotes and escapes
    #: of the local part undone, lower case) and the folded name: one registration per
    #: (event, address, name); a parent may sign up two children. Empty once erased.
    email_key = models.CharField(max_length=254, blank=True, default="", editable=False)
    name_key = models.CharField(max_length=210, blank=True, default="", editable=False)
    licence = models.CharField(_("licence number"), max_length=30, blank=True, default="")
    team = models.CharField(_("team"), max_length=100, blank=True, default="")
    public_name = models.CharField(
        _("name in public"), max_length=5, choices=PublicName, default=PublicName.FULL
    )
    language = models.CharField(_("language"), max_length=8, default="fr")
    status = models.CharField(
        _("status"), max_length=12, choices=Status, default=Status.UNCONFIRMED, db_index=True
    )
    #: Digests (SHA-256, hex) of the two secrets: the confirmation mail's and the
    #: registrant's own link. The secrets themselves are never stored.
    confirm_digest = models.CharField(max_length=64, unique=True, null=True, editable=False)
    link_digest = models.CharField(max_length=64, unique=True, null=True, editable=False)
    #: The own link's secret sealed (tournament.sealing), as referee links are: later mails
    #: carry the same link, and at a venue without mail the desk hands it over (QR code).
    link_sealed = models.CharField(max_length=200, blank=True, default="", editable=False)
    created_at = models.DateTimeField(_("signed up at"), auto_now_add=True)
    confirmed_at = models.DateTimeField(_("confirmed at"), null=True, blank=True)
    #: Why race control refused, moved or cancelled it (said to the registrant).
    reason = models.TextField(_("reason"), blank=True, default="")
    #: At the door: a waiting registrant who came (may take an absent one's seat).
    present = models.BooleanField(_("at the door"), default=False)
    #: On the day: the championship's driver it became (its entry is that driver's).
    driver = models.ForeignKey(
        "tournament.Driver",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="registrations",
        verbose_name=_("driver"),
    )
    erased_at = models.DateTimeField(_("erased at"), null=True, blank=True)
    history = History(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "confirmed_at", "pk"]
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")
        constraints = [
            models.UniqueConstraint(
                fields=["event", "email_key", "name_key"],
                condition=~models.Q(email_key=""),
                name="registration_one_per_address_and_name",
            ),
        ]
        indexes = [
            models.Index(fields=["event", "status", "confirmed_at"]),
            models.Index(fields=["event", "email_key"]),
        ]

    def __str__(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The keys follow the address and the name, whoever writes them (sign-up, the desk,
        # a bundle, an erasure); an erased registration has neither. A save of other fields
        # only (a confirmation's status) leaves them as they are.
        fields = kwargs.get("update_fields")
        if fields is not None and not KEYED.intersection(fields):
            super().save(*args, **kwargs)
            return
        self.email_key = rules.address_key(self.email) if self.email else ""
        self.name_key = name_key(self.first_name, self.last_name) if self.email else ""
        if fields is not None:
            kwargs["update_fields"] = {*fields, "email_key", "name_key"}
        super().save(*args, **kwargs)


class Message(models.Model):
    """Race control's message to all accepted, all waiting or every registrant."""

    class To(models.TextChoices):
        ACCEPTED = "accepted", _("all accepted")
        WAITING = "waiting", _("all waiting")
        ALL = "all", _("everyone")

    event = models.ForeignKey("tournament.Event", on_delete=models.CASCADE, related_name="messages")
    to = models.CharField(_("to"), max_length=10, choices=To)
    subject = models.CharField(_("subject"), max_length=200)
    body = models.TextField(_("message"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)
    queued = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name = _("message")
        verbose_name_plural = _("messages")

    def __str__(self) -> str:
        return self.subject


class Mail(models.Model):
    """The outbox: one row per mail a registrant is to receive, written in the same
    transaction as the change it tells; ``key`` makes it one per (registration, kind)."""

    class Kind(models.TextChoices):
        CONFIRM = "confirm", _("confirm your address")
        ACCEPTED = "accepted", _("you are in")
        WAITING = "waiting", _("waiting list")
        MOVED_IN = "moved_in", _("you moved in")
        REFUSED = "refused", _("refused")
        CANCELLED = "cancelled", _("cancelled")
        REMINDER = "reminder", _("reminder")
        TABLE = "table", _("your table")
        RESULTS = "results", _("results published")
        LINK = "link", _("your link again")
        MESSAGE = "message", _("message from race control")
        INVITATION = "invitation", _("invitation to a club")
        LEAGUE = "league", _("a round proposed by a league")

    class State(models.TextChoices):
        QUEUED = "queued", _("not sent")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")

    #: The registrant it tells, or (for a club's invitation) none.
    registration = models.ForeignKey(
        Registration, on_delete=models.CASCADE, null=True, blank=True, related_name="mails"
    )
    invitation = models.ForeignKey(
        "tournament.Invitation",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="mails",
    )
    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, null=True, blank=True, related_name="mails"
    )
    kind = models.CharField(max_length=10, choices=Kind)
    #: One mail per (registration, key): the kind, or ``message:<id>``, ``link:<n>``.
    key = models.CharField(max_length=60)
    to = models.EmailField()
    language = models.CharField(max_length=8, default="fr")
    subject = models.CharField(max_length=250)
    body_text = models.TextField()
    body_html = models.TextField(blank=True, default="")
    #: The link the mail carries, sealed (tournament.sealing): the bodies hold a placeholder
    #: and the link is written in when the mail is sent, so that no row holds it as it is.
    link_sealed = models.CharField(max_length=300, blank=True, default="", editable=False)
    #: The Message-ID header, fixed before the first try (a retry sends the same).
    message_id_header = models.CharField(max_length=250, blank=True, default="")
    state = models.CharField(max_length=8, choices=State, default=State.QUEUED, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = _("mail")
        verbose_name_plural = _("mails")
        constraints = [
            models.UniqueConstraint(fields=["registration", "key"], name="mail_once_per_key"),
            models.UniqueConstraint(
                fields=["invitation", "key"], name="mail_once_per_invitation_key"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} → {self.registration_id or self.invitation_id}"

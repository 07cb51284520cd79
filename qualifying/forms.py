"""Forms of the qualifying desk and tables; the API validates runs with the same RunForm."""

from __future__ import annotations

import datetime
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from qualifying import scoring
from qualifying.models import Tyres
from tournament.access import REFEREE_NAME_MAX, remember_referee_name
from tournament.registration.forms import NumberListField

MAX_THROWS = 999
MAX_PENALTY = 99
MAX_STOPWATCH_CS = 100 * 60 * 100  # 100 minutes: nobody's lap lasts longer


class StopwatchField(forms.CharField):
    """Accepts ``m:ss``, ``m:ss.cc`` and ``1'45"20`` as written on paper; cleans to 1/100 s."""

    default_error_messages = {
        "invalid": _("Write the stopwatch as 1:45, 1:45.20, 1.45.20 or 1'45\"20."),
        "too_long": _("A lap of more than 100 minutes? Check the stopwatch."),
    }

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value < MAX_STOPWATCH_CS:
                raise forms.ValidationError(self.error_messages["too_long"], code="too_long")
            return value
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        if len(text) > 20:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        try:
            centiseconds = scoring.parse_stopwatch(text)
        except ValueError as exc:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from exc
        if centiseconds >= MAX_STOPWATCH_CS:
            raise forms.ValidationError(self.error_messages["too_long"], code="too_long")
        return centiseconds


class PerformedAtField(forms.DateTimeField):
    """ISO date-time of when the run was performed; anything but text or a datetime is refused.

    The API feeds raw JSON values to this form: a number or a boolean must be a 400.
    """

    def to_python(self, value: Any) -> Any:
        if value is not None and not isinstance(value, str | datetime.datetime):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


def seconds_words(centiseconds: int) -> str:
    """A reading as a person says it: "1.48 s" under a minute, else ``m:ss.cc``."""
    if centiseconds < 6000:
        return _("%(seconds)s s") % {"seconds": number_format(centiseconds / 100, 2)}
    return scoring.format_stopwatch(centiseconds)


def long_message(typed: str, read_cs: int) -> str:
    """A stopwatch above the plausible ceiling, and what it costs, in the page's language."""
    minutes = read_cs // 6000
    return ngettext(
        "“%(typed)s” = %(read)s, above the plausible %(ceiling)s: %(minutes)s full minute, "
        "%(minutes)s throw added. Correct it, or confirm %(read)s.",
        "“%(typed)s” = %(read)s, above the plausible %(ceiling)s: %(minutes)s full minutes, "
        "%(minutes)s throws added. Correct it, or confirm %(read)s.",
        minutes,
    ) % {
        "typed": typed,
        "read": scoring.format_stopwatch(read_cs).removesuffix(".00"),
        "ceiling": scoring.format_stopwatch(scoring.DEFAULT_MAX_STOPWATCH_CS).removesuffix(".00"),
        "minutes": minutes,
    }


def short_message(typed: str, reading: scoring.ShortReading, floor_cs: int) -> str:
    """Both readings of a short stopwatch, in the page's language."""
    if reading.meant_cs is not None:
        return _(
            "“%(typed)s” = %(read)s. Did you mean %(meant)s? Correct it, or confirm %(read)s."
        ) % {
            "typed": typed,
            "read": seconds_words(reading.read_cs),
            "meant": scoring.format_stopwatch(reading.meant_cs).removesuffix(".00"),
        }
    return _(
        "“%(typed)s” = %(read)s, under this event's plausible floor (%(floor)s). Correct it, "
        "or confirm %(read)s."
    ) % {
        "typed": typed,
        "read": seconds_words(reading.read_cs),
        "floor": scoring.format_stopwatch(floor_cs).removesuffix(".00"),
    }


class RunForm(forms.Form):
    """One run as typed. ``min_stopwatch_cs`` is the event's plausible floor; a run's own
    stored stopwatch (``stored_cs``) is never questioned again."""

    tyres = forms.ChoiceField(
        label=_("Tyres"),
        choices=Tyres.choices,
        error_messages={"required": _("Choose the tyres: hard, soft or rain.")},
    )
    throws = forms.IntegerField(
        label=_("Throws"), min_value=1, max_value=MAX_THROWS, required=False
    )
    placement_errors = forms.IntegerField(
        label=_("Placement errors"), min_value=0, max_value=MAX_PENALTY, required=False
    )
    exit_squares = forms.IntegerField(
        label=_("Corner-exit squares"), min_value=0, max_value=MAX_THROWS, required=False
    )
    stopwatch = StopwatchField(label=_("Stopwatch"), required=False)
    confirm_short = forms.BooleanField(label=_("The short time is right"), required=False)
    eliminated = forms.BooleanField(label=_("Eliminated"), required=False)
    performed_at = PerformedAtField(label=_("Performed at"), required=False)
    reason = forms.CharField(
        label=_("Reason for the change"),
        max_length=200,
        required=False,
        help_text=_("Asked once the race tables exist: they were built on the classification."),
    )

    def __init__(
        self,
        *args: Any,
        min_stopwatch_cs: int = scoring.DEFAULT_MIN_STOPWATCH_CS,
        stored_cs: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.min_stopwatch_cs = min_stopwatch_cs
        self.stored_cs = stored_cs
        #: Both readings of a short stopwatch, when it was refused for that (or the
        #: reading above the ceiling, ``long``).
        self.short: scoring.ShortReading | None = None
        self.long = False

    def clean_performed_at(self) -> Any:
        value = self.cleaned_data.get("performed_at")
        if value is not None and not 2000 <= value.year <= 2100:
            raise forms.ValidationError(_("This date is not plausible for a run."))
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        data["placement_errors"] = data.get("placement_errors") or 0
        data["exit_squares"] = data.get("exit_squares") or 0
        if not data.get("eliminated"):
            if data.get("throws") is None and "throws" not in self.errors:
                self.add_error("throws", _("Count the throws (or tick “eliminated”)."))
            if data.get("stopwatch") is None and "stopwatch" not in self.errors:
                self.add_error("stopwatch", _("Write the stopwatch time (or tick “eliminated”)."))
            self._check_short(data)
        return data

    def _check_short(self, data: dict[str, Any]) -> None:
        stopwatch = data.get("stopwatch")
        if stopwatch is None or stopwatch == self.stored_cs:
            return
        typed = self.data.get(self.add_prefix("stopwatch"))
        if isinstance(typed, str):
            self.short = scoring.short_reading(typed, floor_cs=self.min_stopwatch_cs)
        elif stopwatch < self.min_stopwatch_cs:  # a caller's integer: no other reading
            self.short = scoring.ShortReading(stopwatch, None)
            typed = scoring.format_stopwatch(stopwatch)
        if self.short is None and stopwatch > scoring.DEFAULT_MAX_STOPWATCH_CS:
            # Above the ceiling: "10:00" adds ten throws; confirmed with the same tick.
            self.long = True
            self.short = scoring.ShortReading(stopwatch, None)
            typed = typed if isinstance(typed, str) else scoring.format_stopwatch(stopwatch)
            if not data.get("confirm_short"):
                self.add_error(
                    "stopwatch",
                    forms.ValidationError(long_message(typed.strip(), stopwatch), code="long"),
                )
            return
        # Kept when confirmed too: the page goes on showing both readings beside the tick.
        if self.short is not None and not data.get("confirm_short"):
            self.add_error(
                "stopwatch",
                forms.ValidationError(
                    short_message(typed.strip(), self.short, self.min_stopwatch_cs), code="short"
                ),
            )

    def stopwatch_words(self) -> dict[str, Any]:
        """What the page shows beside the stopwatch: the reading in parts (``read``), the
        text typed, and for a short reading both readings (``short_*``)."""
        typed = self.data.get(self.add_prefix("stopwatch")) if self.is_bound else None
        if typed is None:
            typed = self.initial.get("stopwatch") or ""
        typed = str(typed).strip()
        read = None
        if typed and len(typed) <= 20:
            try:
                read = scoring.stopwatch_parts(scoring.parse_stopwatch(typed))
            except ValueError:
                read = None
        words: dict[str, Any] = {"read": read, "typed": typed, "short": self.short}
        if self.long and self.short is not None:
            words["short_message"] = long_message(typed, self.short.read_cs)
            words["short_read"] = scoring.format_stopwatch(self.short.read_cs).removesuffix(".00")
        elif self.short is not None:
            words["short_message"] = short_message(typed, self.short, self.min_stopwatch_cs)
            words["short_read"] = seconds_words(self.short.read_cs)
            if self.short.meant_cs is not None:
                words["short_meant"] = scoring.format_stopwatch(self.short.meant_cs).removesuffix(
                    ".00"
                )
        return words


class RefereeNameForm(forms.Form):
    """The name a referee holding a table's link gives once, for the trail."""

    name = forms.CharField(
        label=_("Your name"),
        max_length=REFEREE_NAME_MAX,
        required=False,
        help_text=_("Shown in the history beside this link's changes, on this device."),
    )

    @classmethod
    def remember_posted(cls, request: HttpRequest, table: Any) -> None:
        """Remember the name posted for ``table`` (a qualifying or a race table) on this
        device, and say so, or say why not."""
        form = cls(request.POST)
        if not form.is_valid():
            messages.error(request, " ".join(str(e) for e in form.errors.get("name", [])))
        elif name := remember_referee_name(request, table, form.cleaned_data["name"]):
            messages.success(
                request, gettext("Your changes are recorded as %(name)s.") % {"name": name}
            )


class SessionForm(forms.Form):
    number = forms.IntegerField(label=_("Session number"), min_value=1, max_value=20)
    weather_roll = forms.IntegerField(
        label=_("Weather roll (d20)"),
        min_value=1,
        max_value=20,
        required=False,
        help_text=_("Leave empty to let the system roll."),
    )


class CancelRunForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200)


class QualifyingTableForm(forms.Form):
    number = forms.IntegerField(label=_("Table"), min_value=1, max_value=200)
    referee_name = forms.CharField(label=_("Referee"), max_length=120, required=False)
    drivers = NumberListField(label=_("Driver numbers"))
    fast = forms.BooleanField(
        label=_("For drivers running under a minute (§1-0-4)"),
        required=False,
        help_text=_(
            "Experienced referees: the automatic spread seats the drivers flagged as running "
            "under a minute here."
        ),
    )
    referee_account = forms.CharField(
        label=_("Referee account"),
        max_length=150,
        required=False,
        help_text=_(
            "The username of a referee's account: it then opens this table's page when "
            "logged in, like the link. Empty: no account."
        ),
    )


class FastDriversForm(forms.Form):
    numbers = NumberListField(
        label=_("Drivers running under a minute (§1-0-4)"),
        required=False,
        help_text=_(
            "Their numbers, separated by spaces: the automatic spread seats them at the "
            "tables marked for them. Empty: none."
        ),
    )
    tables = NumberListField(
        label=_("Tables reserved for them"),
        required=False,
        help_text=_(
            "Table numbers, e.g. 1: the table is made if it does not exist yet, with "
            "experienced referees. Empty: none."
        ),
    )


class AutoTablesForm(forms.Form):
    table_size = forms.IntegerField(label=_("Drivers per table"), min_value=1, max_value=40)

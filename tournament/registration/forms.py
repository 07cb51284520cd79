"""Forms of the registration pages."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django import forms
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from races.games.quick import rules as quick
from races.grid import configuration as configuration_rules
from races.grid.configuration import FIELDS
from tournament.errors import ServiceError
from tournament.games import registry
from tournament.models import Driver, Event, Team
from tournament.players.names import LICENCE_MAX
from tournament.registration.csv_import import MAX_NUMBER
from tournament.rules.stopwatch import DEFAULT_MIN_STOPWATCH_CS, parse_stopwatch
from tournament.signup.rules import one_line
from tournament.wording import PART_NAMES, configuration_messages, laps_errors

MAX_UPLOAD = 2 * 1024 * 1024


def validate_one_line(value: str) -> None:
    """Names are one line (API.md): a line break stops a mail and a calendar."""
    if not one_line(value or ""):
        raise forms.ValidationError(_("One line only: no line break."), code="one_line")


class DriverImportForm(forms.Form):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "Columns number, first_name, last_name, team, email, licence (the last three "
            "may be left out); separated by ; or , (UTF-8, as saved by a spreadsheet)."
        ),
    )

    def clean_file(self):  # type: ignore[no-untyped-def]
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD:
            raise forms.ValidationError(_("The file is larger than 2 MB: is it really a CSV?"))
        return upload


class DriverForm(forms.Form):
    """One driver registered by race control (``services.driver_create``, as the API and,
    line by line, the CSV import): the licence finds the same player in other championships."""

    number = forms.IntegerField(label=_("Number"), min_value=1, max_value=MAX_NUMBER)
    first_name = forms.CharField(
        label=_("First name"),
        max_length=Driver._meta.get_field("first_name").max_length,
        validators=[validate_one_line],
    )
    last_name = forms.CharField(
        label=_("Last name"),
        max_length=Driver._meta.get_field("last_name").max_length,
        validators=[validate_one_line],
    )
    team = forms.CharField(
        label=_("Team"),
        required=False,
        max_length=Team._meta.get_field("name").max_length,
        validators=[validate_one_line],
    )
    email = forms.EmailField(label=_("E-mail"), required=False)
    licence = forms.CharField(
        label=_("Licence number"),
        required=False,
        max_length=LICENCE_MAX,
        help_text=_("The federation's, if any: it finds the same player in other championships."),
    )


class NextSeasonForm(forms.Form):
    """The next season's slug, name and season (prefilled: ``seasons.next_season_defaults``)."""

    slug = forms.SlugField(
        label=_("Slug (the address)"),
        max_length=50,
        help_text=_("Lowercase letters, digits and hyphens."),
    )
    name = forms.CharField(label=_("Name"), max_length=200, validators=[validate_one_line])
    season = forms.CharField(label=_("Season"), max_length=20, validators=[validate_one_line])


class NumberListField(forms.CharField):
    """Driver numbers typed as ``3 7 12`` or ``3, 7, 12``; cleans to a list of ints."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("max_length", 4000)
        kwargs.setdefault("help_text", _("Numbers separated by spaces or commas."))
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def clean(self, value: object) -> list[int]:  # type: ignore[override]
        text = super().clean(value)
        numbers = []
        for token in text.replace(",", " ").replace(";", " ").split():
            # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
            if not re.fullmatch(r"[0-9]{1,6}", token):
                raise forms.ValidationError(
                    _("“%(value)s” is not a driver number."), params={"value": token}
                )
            numbers.append(int(token))
        return numbers


class RegisterForm(forms.Form):
    numbers = NumberListField(label=_("Driver numbers"))

    #: The session key of what the desk's box keeps after a refusal: the numbers still to
    #: deal with and why, shown again beside the box on the next visit of the desk.
    KEPT = "desk-register-kept"

    @classmethod
    def keep(cls, session: Any, numbers: str, error: str) -> None:
        """Keep ``numbers`` in the box for the desk's next display, with ``error``."""
        session[cls.KEPT] = {"numbers": numbers, "error": str(error)}

    @classmethod
    def for_desk(cls, session: Any) -> RegisterForm:
        """The desk's box: empty, or what a refusal kept there with its reason."""
        kept = session.pop(cls.KEPT, None)
        if not kept:
            return cls()
        form = cls(data={"numbers": kept["numbers"]})
        form.full_clean()
        form.errors.pop("numbers", None)
        form.add_error("numbers", kept["error"])
        return form


#: The settings each game reads, beside those of every event (``COMMON_FIELDS``): the form
#: shows only these (the other games' fields hide as the game changes, and are ignored).
#: Each game says its own in the registry (``tournament.games.registry``, API names).
COMMON_FIELDS = ("game", "name", "slug", "date", "circuit", "table_size", "language")
STANDARD_FIELDS = tuple(f"standard_{name}" for name in FIELDS)
#: The fields of a game run on the catalogue's circuits only (``GameSpec.circuit``).
CIRCUIT_FIELDS = ("circuit", "laps")


def game_fields(game: str) -> tuple[str, ...]:
    """The form's fields of ``game``'s settings (the standard car is one per part)."""
    spec = registry.game(game)
    if spec is None:
        return ()
    return tuple(
        name
        for setting in spec.settings
        for name in (STANDARD_FIELDS if setting == "standard_configuration" else (setting,))
    )


_APOSTROPHES = re.compile("['\u2019\u02bc]")


def derived_slug(name: str, *, taken: Callable[[str], bool], max_length: int = 50) -> str:
    """The slug of an event named ``name``: its words in lowercase ASCII joined by hyphens,
    with ``-2``, ``-3``… when the slug is taken already ("" when nothing is left). An
    apostrophe separates words ("d'automne" is "d-automne", never "dautomne")."""
    base = slugify(_APOSTROPHES.sub(" ", name)).replace("_", "-").strip("-")[:max_length].strip("-")
    if not base:
        return ""
    slug, index = base, 1
    while taken(slug):
        index += 1
        suffix = f"-{index}"
        slug = base[: max_length - len(suffix)].rstrip("-") + suffix
    return slug


class EventForm(forms.ModelForm):
    """An event's settings as the organiser sets them: the game first, then only the
    fields that game reads; the slug derived from the name unless typed."""

    stand_numbers = NumberListField(
        label=_("Stand numbers"),
        required=False,
        help_text=_("Empty: stands 1 to the table size. Otherwise numbers separated by spaces."),
    )

    min_stopwatch = forms.CharField(
        label=_("Plausible stopwatch floor"),
        max_length=20,
        required=False,
        help_text=_(
            "m:ss. A qualifying stopwatch below it (“1,48” read as 1.48 s) is refused unless "
            "the referee confirms it. Empty: 0:20."
        ),
    )

    class Meta:
        model = Event
        fields = [
            "game",
            "name",
            "slug",
            "date",
            "circuit",
            "table_size",
            "language",
            "laps",
            "qualifying_mode",
            "minute_penalty",
            "allow_redo",
            "separate_teams",
            "use_configurations",
            "crash_limit",
            "collisions",
            "race_end",
            "seed_by_rating",
            "show_favourites",
            "game_name",
            "grid",
        ]
        widgets = {"date": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")}
        labels = {
            "seed_by_rating": _("Seed the race tables by rating (a club's choice)"),
            "show_favourites": _("Show each race table's favourites, for fun"),
        }
        help_texts = {
            "game_name": _(
                "The racing game you play, as players call it (“Heat: Pedal to the Metal”)."
            ),
            "seed_by_rating": _(
                "Quick rules (d20 draw) only. The quick rules seat the grid by the d20 "
                "alone, and that stays the default. Ticked, the best-rated players race "
                "together at table 1, the next ones at table 2, as qualifying groups the "
                "fastest in a competition (§1-3-2); within each table the d20 still gives "
                "the grid."
            ),
            "show_favourites": _(
                "The event page and the room's projector show each table's chances to win, "
                "from the players' ratings. Just for fun: it changes nothing in the race."
            ),
        }

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Quick rules (other games): one configuration every driver uses, printed on sheets.
        for name in FIELDS:
            self.fields[f"standard_{name}"] = forms.IntegerField(
                label=_("Standard car: %(part)s") % {"part": PART_NAMES[name]},
                required=False,
                min_value=0,
                max_value=22,
            )
        # Older forms and scripts send neither: the event keeps its game and crash limit.
        self.fields["game"].required = False
        self.fields["crash_limit"].required = False
        if "race_end" in self.fields:
            self.fields["race_end"].required = False
        self.fields["name"].validators.append(validate_one_line)
        self.fields["slug"].required = False
        self.fields["slug"].help_text = _("Empty: made from the name. It is in every link.")
        self.order_fields([*COMMON_FIELDS, *(f for f in self.fields if f not in COMMON_FIELDS)])
        if self.instance.pk:
            self.fields.pop("slug")  # links and QR codes already printed use it
            self.fields.pop("game")  # tables, sheets and results depend on it
            self.initial["stand_numbers"] = " ".join(str(n) for n in self.instance.stand_numbers)
            self.initial["min_stopwatch"] = self.instance.min_stopwatch
            for name, value in (self.instance.standard_configuration or {}).items():
                self.initial[f"standard_{name}"] = value
        game = self.instance.game if self.instance.pk else (self.data.get("game") or None)
        self.fields["game_name"].validators.append(validate_one_line)
        self.fields["grid"].required = False  # a named game's: the event keeps its own
        if registry.is_known(game):
            # The chosen game's fields only: another game's field is neither shown nor read.
            chosen = game_fields(str(game))
            for name in [f for f in self.fields if f not in COMMON_FIELDS]:
                if name not in chosen:
                    self.fields.pop(name)
            if not registry.spec_of(str(game)).circuit:
                # A game run on its own tracks: no circuit, nor a circuit's laps (the API
                # still takes ``laps`` for the retirements' bound and the sheet).
                for name in CIRCUIT_FIELDS:
                    self.fields.pop(name, None)
        for name, field in self.fields.items():
            # The games a field belongs to, for the page's script ("" = every game).
            field.games = (  # type: ignore[attr-defined]
                ""
                if name in COMMON_FIELDS and name not in CIRCUIT_FIELDS
                else " ".join(
                    s.key
                    for s in registry.games()
                    if (name in COMMON_FIELDS or name in game_fields(s.key))
                    and (s.circuit or name not in CIRCUIT_FIELDS)
                )
            )

    def clean_slug(self) -> str:
        slug = self.cleaned_data.get("slug") or ""
        if slug or "slug" not in self.fields:
            return slug
        name = self.cleaned_data.get("name") or ""
        slug = derived_slug(name, taken=lambda s: Event.objects.filter(slug=s).exists())
        if not slug:
            raise forms.ValidationError(
                _("Give the event a slug: its name has no letter or digit to make one from.")
            )
        return slug

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if "game" in self.fields and not data.get("game"):
            data["game"] = self.instance.game
        if "crash_limit" in self.fields and data.get("crash_limit") is None:
            data["crash_limit"] = self.instance.crash_limit
        if "grid" in self.fields and not data.get("grid"):
            data["grid"] = self.instance.grid
        if "race_end" in self.fields and not data.get("race_end"):
            data["race_end"] = self.instance.race_end
        if "standard_tyres" not in self.fields:  # a game without a standard car
            return data
        values = {name: data.get(f"standard_{name}") for name in FIELDS}
        quick_rules = data.get("qualifying_mode", self.instance.qualifying_mode) == "draw"
        if quick_rules and values["stand_points"] is None:
            values["stand_points"] = 0  # the quick rules have no stand (point 1)
        if all(v in (None, 0) for v in values.values()):
            data["standard_configuration"] = None
        else:
            problems = (
                quick.standard_configuration_problems(values)
                if quick_rules
                else configuration_rules.configuration_problems(values)
            )
            if problems:
                self.add_error(
                    None,
                    _("The standard car must be a valid configuration: %(problems)s.")
                    % {
                        "problems": " ".join(
                            m for msgs in configuration_messages(problems).values() for m in msgs
                        )
                    },
                )
            data["standard_configuration"] = values
        game = data.get("game") or self.instance.game
        if game == registry.MAIN_GAME and "laps" in self.fields:
            # §2-0-3: a competition race is 3 laps; quick rules point 10: 1 to 3.
            mode = data.get("qualifying_mode") or self.instance.qualifying_mode
            circuit = data.get("circuit") or getattr(self.instance, "circuit", None)
            # The event's own circuit: the laps it kept (DOMAIN.md "Many clubs on one server").
            kept = circuit is not None and circuit.pk == self.instance.circuit_id
            for error in laps_errors(
                quick_rules=mode == "draw",
                competition=mode != "draw",
                laps=data.get("laps"),
                circuit_laps=self.instance.circuit_race_laps
                if kept
                else getattr(circuit, "laps", None),
            ):
                self.add_error("laps", error)
        return data

    def _post_clean(self) -> None:
        # The laps were judged in clean() on what was typed (§2-0-3; quick rules point 10).
        # The model's clean() judges the same rule again, on the laps the instance kept (the
        # old ones when the typed value was refused): said once, as the form said it.
        said = self._errors.get("laps")
        kept = list(said.data) if said else None
        super()._post_clean()
        if kept is not None:
            self._errors["laps"].data[:] = kept

    def clean_min_stopwatch(self) -> str:
        text = (self.cleaned_data.get("min_stopwatch") or "").strip()
        try:
            self.cleaned_data["min_stopwatch_cs"] = (
                parse_stopwatch(text) if text else DEFAULT_MIN_STOPWATCH_CS
            )
        except ValueError:
            raise forms.ValidationError(_("Write it as a stopwatch time, e.g. 0:20.")) from None
        return text

    def clean_stand_numbers(self) -> list[int]:
        numbers = self.cleaned_data.get("stand_numbers") or []
        if len(set(numbers)) != len(numbers):
            raise forms.ValidationError(_("A stand number is listed twice."))
        return numbers


def apply_errors(form: forms.BaseForm, exc: ServiceError) -> None:
    """A service's refusal shown on the form: on its fields where it names them."""
    for name, errors in exc.errors.items():
        for error in errors:
            form.add_error(name if name in form.fields else None, error)
    if not exc.errors:
        form.add_error(None, exc.message)

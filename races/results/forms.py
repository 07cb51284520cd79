"""Forms of the race result pages: the referee's sheet (one row per grid driver) and race
control's confirm / reopen buttons. A finisher's row keeps its note (§16-0-6: an engine
broken on the last lap, the car kept as a finisher).

The sheet form only turns what was typed into the service's three lists (finish, retired,
dns); every rule about a result (everyone once, a cause, a lap in range, a note for
"other") is ``races.results.services.result_save``'s to check and to word.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from races.models import GridSlot, RaceResult, RetirementCause
from races.results.services import finisher_notes

RETIRED = "retired"
DNS = "dns"
PARTS = ("outcome", "cause", "lap", "note", "order")


def ordinal(place: int, *, feminine: bool = False) -> str:
    """1st, 2nd… / 1er, 2e…: grammar rather than vocabulary, so not in the catalogue.

    French agrees the first with its noun: "1er" (le pilote), "1re" (la place)."""
    if (get_language() or "fr").startswith("fr"):
        if place == 1:
            return "1re" if feminine else "1er"
        return f"{place}e"
    if 10 <= place % 100 <= 20:
        return f"{place}th"
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th') }"


def driver_label(slot: GridSlot) -> str:
    """How the service names a driver in its messages: "3 Léa Morel"."""
    return f"{slot.driver.number} {slot.driver.name}"


@dataclass
class Sheet:
    """A result as the service takes it: finishers in crossing order, retirements in the
    order they happened, non-starters; plus the grid drivers not written yet."""

    finish: list[int] = field(default_factory=list)
    retired: list[dict[str, Any]] = field(default_factory=list)
    dns: list[int] = field(default_factory=list)
    unwritten: list[int] = field(default_factory=list)
    #: Finishers' notes by driver (e.g. an engine broken on the last lap, §16-0-6).
    notes: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, result: RaceResult | None, grid: Sequence[GridSlot]) -> Sheet:
        if result is None:
            return cls(unwritten=[s.driver.number for s in grid])
        written = set(result.finish) | {r["driver"] for r in result.retired} | set(result.dns)
        return cls(
            finish=list(result.finish),
            retired=[dict(r) for r in result.retired],
            dns=list(result.dns),
            unwritten=[s.driver.number for s in grid if s.driver.number not in written],
            notes=finisher_notes(result),
        )

    @property
    def complete(self) -> bool:
        return not self.unwritten

    def outcome_of(self, number: int) -> tuple[str, Any]:
        """("finished", place) / ("retired", {cause, lap, note}) / ("dns", None) / ("", None)."""
        if number in self.finish:
            return "finished", self.finish.index(number) + 1
        for retirement in self.retired:
            if retirement["driver"] == number:
                return RETIRED, retirement
        if number in self.dns:
            return DNS, None
        return "", None

    def moved(self, number: int, step: int) -> Sheet:
        """The same sheet with finisher ``number`` one place up (-1) or down (+1)."""
        finish = list(self.finish)
        if number in finish:
            here = finish.index(number)
            there = here + step
            if 0 <= there < len(finish):
                finish[here], finish[there] = finish[there], finish[here]
        return Sheet(finish, self.retired, self.dns, self.unwritten, self.notes)

    def initial(self) -> dict[str, str]:
        """Form values that show this sheet again."""
        values: dict[str, str] = {}
        for place, number in enumerate(self.finish, start=1):
            values[f"d{number}-outcome"] = str(place)
            if self.notes.get(number):
                values[f"d{number}-note"] = self.notes[number]
        for order, retirement in enumerate(self.retired, start=1):
            prefix = f"d{retirement['driver']}-"
            values[prefix + "outcome"] = RETIRED
            values[prefix + "cause"] = retirement.get("cause") or ""
            lap = retirement.get("lap")
            values[prefix + "lap"] = "" if lap is None else str(lap)
            values[prefix + "note"] = retirement.get("note") or ""
            values[prefix + "order"] = str(order)
        for number in self.dns:
            values[f"d{number}-outcome"] = DNS
        return values


def outcome_text(sheet: Sheet, number: int) -> str:
    """One driver's line of a sheet in words, to say what changed between two sheets."""
    kind, value = sheet.outcome_of(number)
    if kind == "finished":
        note = sheet.notes.get(number)
        return f"{ordinal(value)} « {note} »" if note else ordinal(value)
    if kind == RETIRED:
        return retirement_text(value)
    if kind == DNS:
        return _("did not start")
    return _("not written")


def retirement_details(retirement: Mapping[str, Any]) -> str:
    """Cause, lap and note of a retirement ("Engine, lap 2") in the page's language."""
    cause = retirement.get("cause") or ""
    details = [str(RetirementCause(cause).label) if cause in RetirementCause.values else "?"]
    if retirement.get("lap") is not None:
        details.append(_("lap %(lap)s") % {"lap": retirement["lap"]})
    if retirement.get("note"):
        details.append(f"« {retirement['note']} »")
    return ", ".join(details)


def retirement_text(retirement: Mapping[str, Any]) -> str:
    """A retirement in words: "retired (Engine, lap 2)"."""
    return _("retired (%(details)s)") % {"details": retirement_details(retirement)}


@dataclass(frozen=True)
class Row:
    """One grid driver's row of the form, for the template."""

    slot: GridSlot
    outcome: forms.BoundField
    cause: forms.BoundField
    lap: forms.BoundField
    note: forms.BoundField
    order: forms.BoundField
    errors: list[str]

    @property
    def state(self) -> str:
        value = str(self.outcome.value() or "")
        if value.isdigit():
            return "finished"
        return value


class ResultForm(forms.Form):
    """The referee's sheet: per grid driver a place / "retired" / "did not start", and for
    a retirement its cause, lap, note and (for two in one lap) which came first."""

    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)

    def __init__(self, *args: Any, grid: Sequence[GridSlot], laps: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.grid = list(grid)
        self.laps = laps
        self.gaps: list[int] = []
        outcomes = [
            ("", "—"),
            *((str(p), ordinal(p)) for p in range(1, len(self.grid) + 1)),
            (RETIRED, _("Retired")),
            (DNS, _("Did not start")),
        ]
        causes = [("", "—"), *RetirementCause.choices]
        for slot in self.grid:
            prefix = f"d{slot.driver.number}-"
            self.fields[prefix + "outcome"] = forms.ChoiceField(
                label=gettext_lazy("Result"), choices=outcomes, required=False
            )
            self.fields[prefix + "cause"] = forms.ChoiceField(
                label=gettext_lazy("Cause"), choices=causes, required=False
            )
            # Range checked by the service, which names the driver in its message.
            self.fields[prefix + "lap"] = forms.IntegerField(
                label=gettext_lazy("Lap"), required=False
            )
            self.fields[prefix + "note"] = forms.CharField(
                label=gettext_lazy("Note"), required=False, max_length=200
            )
            self.fields[prefix + "order"] = forms.IntegerField(
                label=gettext_lazy("Order in the lap"), required=False, min_value=1
            )

    def rows(self, driver_errors: Mapping[str, Iterable[str]] | None = None) -> list[Row]:
        driver_errors = driver_errors or {}
        rows = []
        for slot in self.grid:
            prefix = f"d{slot.driver.number}-"
            errors = [str(e) for part in PARTS for e in self.errors.get(prefix + part, [])]
            errors += [e for e in driver_errors.get(str(slot.driver.number), []) if e not in errors]
            rows.append(
                Row(slot, *(self[prefix + part] for part in PARTS), errors=errors)  # type: ignore[arg-type]
            )
        return rows

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        by_place: dict[int, list[GridSlot]] = {}
        for slot in self.grid:
            prefix = f"d{slot.driver.number}-"
            outcome = data.get(prefix + "outcome") or ""
            if outcome.isdigit():
                by_place.setdefault(int(outcome), []).append(slot)
            elif outcome == RETIRED and not data.get(prefix + "cause"):
                self.add_error(
                    prefix + "cause",
                    _("%(driver)s: choose the cause of the retirement.")
                    % {"driver": driver_label(slot)},
                )
        for place, slots in sorted(by_place.items()):
            if len(slots) > 1:
                message = _("Place %(place)s is written for %(drivers)s: one driver a place.") % {
                    "place": place,
                    "drivers": ", ".join(driver_label(s) for s in slots),
                }
                for slot in slots:
                    self.add_error(f"d{slot.driver.number}-outcome", message)
        if by_place:
            self.gaps = [p for p in range(1, max(by_place)) if p not in by_place]
        return data

    def _values(self, number: int) -> dict[str, Any]:
        prefix = f"d{number}-"
        if self.is_bound:
            source = getattr(self, "cleaned_data", {})
            return {part: source.get(prefix + part) for part in PARTS}
        values: dict[str, Any] = {part: self.initial.get(prefix + part) for part in PARTS}
        for part in ("lap", "order"):
            text = str(values[part] or "")
            values[part] = int(text) if text.isdigit() else None
        return values

    def places(self) -> dict[int, int]:
        """Each finisher's place as typed in its box (driver number → place): the summary
        says these, so that it never disagrees with the boxes (gaps close up when saved)."""
        found = {}
        for slot in self.grid:
            outcome = str(self._values(slot.driver.number)["outcome"] or "")
            if outcome.isdigit():
                found[slot.driver.number] = int(outcome)
        return found

    def sheet(self) -> Sheet:
        """What was typed, as the service's lists (places closed up, as far as it is valid).

        Retirements go in the order of their laps (a blank lap last), then by the order
        typed for two in one lap, then by grid order.
        """
        sheet = Sheet()
        finishers: list[tuple[int, int, int]] = []
        retirements: list[tuple[float, float, int, dict[str, Any]]] = []
        for slot in self.grid:
            number = slot.driver.number
            values = self._values(number)
            outcome = str(values["outcome"] or "")
            if outcome.isdigit():
                finishers.append((int(outcome), slot.position, number))
                note = (values["note"] or "").strip()
                if note:
                    sheet.notes[number] = note
            elif outcome == RETIRED:
                lap, order = values["lap"], values["order"]
                retirement = {
                    "driver": number,
                    "cause": values["cause"] or None,
                    "lap": lap,
                    "note": (values["note"] or "").strip(),
                }
                retirements.append(
                    (
                        math.inf if lap is None else lap,
                        math.inf if order is None else order,
                        slot.position,
                        retirement,
                    )
                )
            elif outcome == DNS:
                sheet.dns.append(number)
            else:
                sheet.unwritten.append(number)
        sheet.finish = [number for _place, _position, number in sorted(finishers)]
        sheet.retired = [r for *_key, r in sorted(retirements, key=lambda item: item[:3])]
        return sheet


class ConfirmForm(forms.Form):
    """Race control confirms the version it saw on the desk."""

    version = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)


class ReopenForm(forms.Form):
    version = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    # Required by the service, which says why in its own words.
    reason = forms.CharField(label=gettext_lazy("Reason"), max_length=200, required=False)

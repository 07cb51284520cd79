"""One tournament day played through the services race control uses, the same on the
laptop (in a ``manage.py shell`` of its own) and typed directly on the hosted server: a late
driver at the door, the check-in, a d20 draw, the tables, the weather, every result
confirmed, a photo of a signed sheet, a points sanction, the results published."""

from __future__ import annotations

import io

from django.contrib.auth import get_user_model
from django.db import transaction
from PIL import Image

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import GridSlot, RaceTable
from races.photos.services import photo_add
from races.results.services import result_confirm, result_save
from races.sanctions.services import sanction_record
from races.weather.services import race_weather_draw
from tournament.access import Actor
from tournament.models import Event
from tournament.registration.services import (
    driver_create,
    entries_checkin,
    entries_register,
    event_publish,
)
from tournament.signup.models import Registration

#: The day's late driver, created at the door.
LATE = ("Zoé", "Retardataire")


def photo() -> bytes:
    image = Image.new("RGB", (640, 480), "white")
    image.paste((30, 30, 30), (40, 40, 600, 80))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=85)
    return out.getvalue()


def play(slug: str, *, username: str = "rc", number: int | None = None) -> int:
    """Play event ``slug``'s day; answers the late driver's number (``number``, or on the
    laptop the one the check-out reserved)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        user = get_user_model().objects.create_superuser(username, password=None)
    actor = Actor(user=user)
    event = Event.objects.select_related("championship").get(slug=slug)
    for registration in Registration.objects.filter(event=event):  # they came
        registration.present = True
        registration.save()
    with transaction.atomic():
        late = driver_create(
            actor=actor,
            championship=event.championship,
            number=number,
            first_name=LATE[0],
            last_name=LATE[1],
        )
        numbers = [*event.entries.values_list("driver__number", flat=True), late.number]
        entries_register(actor=actor, event=event, numbers=[late.number])
        entries_checkin(actor=actor, event=event, numbers=numbers)
    draw_record(actor=actor, event=event, rolls={n: [(n * 7) % 20 + 1] for n in numbers})
    allocation_run(actor=actor, event=event, table_size=5)
    race_weather_draw(actor=actor, event=event, roll=16)
    for table in RaceTable.objects.filter(event=event).order_by("number"):
        grid = list(
            GridSlot.objects.filter(table=table)
            .order_by("position")
            .values_list("driver__number", flat=True)
        )
        finish = sorted(grid, key=lambda n: (n * 5) % 11)
        result_save(
            actor=actor, table=table, version=0, finish=finish, retired=[], dns=[], submit=True
        )
        result_confirm(actor=actor, table=table)
    photo_add(actor=actor, table=RaceTable.objects.get(event=event, number=1), data=photo())
    sanction_record(
        actor=actor,
        event=event,
        driver=numbers[0],
        kind="points",
        value=2,
        reason="Dés lancés hors piste",
    )
    event_publish(actor=actor, event=event, results=True)
    return late.number

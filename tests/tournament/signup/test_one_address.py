"""One address, several people (DOMAIN.md "Corrections to 'Before the day'"): an address may
hold several registrations of one event when the names differ, each confirmed by its own
mail; the same name and address again re-sends that registration's link; a sign-up never
replaces or deletes another; the answer is the same for a stranger. Addresses compare as
the mail server delivers them (API.md: ``"victim"@EXAMPLE.org`` is ``victim@example.org``),
for one registration per person and for the per-address limit of sign-ups."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client, RequestFactory

from tests.tournament.signup.conftest import CONFIRM, OWN, last_token, sent_text
from tournament.errors import InvalidInput
from tournament.signup import services
from tournament.signup.models import Mail, Registration
from tournament.site import ratelimit

pytestmark = [pytest.mark.django_db, pytest.mark.keeps_context]


def sign_up(event, first_name: str, email: str, last_name: str = "Martin") -> None:
    services.registration_sign_up(
        event=event, first_name=first_name, last_name=last_name, email=email
    )


def test_a_parent_signs_up_two_children_each_confirmed_by_its_own_mail(open_event):
    """DOMAIN.md "Corrections": a parent and two children, one address: three registrations,
    none replacing another, each confirmed by its own link."""
    event = open_event(capacity=None)
    for first_name in ("Julie", "Léo", "Inès"):
        sign_up(event, first_name, "famille@example.org")
    rows = Registration.objects.filter(event=event).order_by("pk")
    assert [r.first_name for r in rows] == ["Julie", "Léo", "Inès"]
    confirms = Mail.objects.filter(kind="confirm").order_by("pk")
    assert [m.registration_id for m in confirms] == [r.pk for r in rows]
    for mail in confirms:
        registration, _link = services.registration_confirm(
            token=CONFIRM.search(sent_text(mail)).group(1)
        )
        assert registration.pk == mail.registration_id and registration.status == "accepted"
    assert Registration.objects.filter(event=event, status="accepted").count() == 3


def test_the_same_name_and_address_again_sends_that_registrations_link(
    open_event, sign_up_confirmed
):
    """DOMAIN.md "Corrections": the same name and address again re-sends that
    registration's link; the other person at the address is untouched."""
    event = open_event(capacity=None)
    julie, link = sign_up_confirmed(event, "famille@example.org", first_name="Julie")
    sign_up(event, "Léo", "famille@example.org")
    sign_up(event, "JULIE", "Famille@Example.org", last_name="lefevre")  # Julie Lefèvre again
    assert Registration.objects.filter(event=event).count() == 2
    again = Mail.objects.filter(registration=julie).order_by("pk").last()
    assert again.kind == "link" and OWN.search(sent_text(again)).group(0) in link
    leo = Registration.objects.get(first_name="Léo")
    assert leo.status == "unconfirmed"
    assert Mail.objects.filter(registration=leo).count() == 1


def test_an_unconfirmed_registration_is_never_replaced_by_another_name(open_event):
    """The walk's case (issue 40, item 7): the second child's sign-up silently replaced the
    first, unconfirmed one. Both links work."""
    event = open_event(capacity=None)
    sign_up(event, "Julie", "famille@example.org")
    first_token = last_token("famille@example.org")
    sign_up(event, "Léo", "famille@example.org")
    second_token = last_token("famille@example.org")
    julie, _ = services.registration_confirm(token=first_token)
    leo, _ = services.registration_confirm(token=second_token)
    assert (julie.first_name, leo.first_name) == ("Julie", "Léo")
    assert julie.pk != leo.pk


def test_a_quoted_local_part_is_the_same_address(open_event, sign_up_confirmed):
    """API.md: an address is compared as the mail server would deliver it. A quoted or
    escaped local part and a capitalised domain are the same person, who gets their link
    again: no second registration (and no error)."""
    event = open_event()
    registration, link = sign_up_confirmed(event, "victim@corp.example")
    for variant in ('"victim"@corp.example', '"vi\\ctim"@CORP.EXAMPLE'):
        sign_up(event, "Élodie", variant, last_name="Lefèvre")
    assert Registration.objects.filter(event=event).count() == 1
    kinds = list(Mail.objects.filter(registration=registration).values_list("kind", flat=True))
    assert kinds.count("link") == 2


def test_the_page_answers_a_stranger_as_it_answers_anyone(open_event, sign_up_confirmed):
    """The answer stays the same for a stranger (DOMAIN.md "Corrections"): the same page
    whether the address is new, known with this name, or known with another."""
    event = open_event()
    sign_up_confirmed(event, "victim@corp.example")
    form = {"last_name": "Lefèvre", "public_name": "full", "consent": "on", "website": ""}
    answers = [
        Client().post(
            f"/e/{event.slug}/signup/", {**form, "first_name": first_name, "email": email}
        )
        for first_name, email in (
            ("Élodie", '"victim"@corp.example'),
            ("Mallory", "victim@corp.example"),
            ("Mallory", "someone.new@example.org"),
        )
    ]
    assert {a.status_code for a in answers} == {200}
    main = {re.search(r"<main.*</main>", a.content.decode(), re.S).group(0) for a in answers}
    assert len(main) == 1


def test_the_per_address_limit_counts_an_address_as_delivered(settings):
    """API.md: ``"victim"@EXAMPLE.org`` is ``victim@example.org``; the per-address limit of
    sign-ups counts them together (quotes, escapes and capitals gave five tries each)."""
    settings.SIGNUP_TRIES_PER_EMAIL = 3
    settings.SIGNUP_TRIES_PER_ADDRESS = 100
    cache.clear()
    request = RequestFactory().post("/", REMOTE_ADDR="192.0.2.7")
    for email in ("victim@corp.example", '"victim"@corp.example', '"vi\\ctim"@CORP.EXAMPLE'):
        ratelimit.signup_check(request, email)
    with pytest.raises(ratelimit.TooManySignUps):
        ratelimit.signup_check(request, "Victim@Corp.Example")
    cache.clear()


@pytest.mark.skipif(
    not isinstance(caches["default"], RedisCache), reason="Redis's pipeline: set REDIS_URL"
)
def test_redis_counts_both_limits_in_one_round_trip(settings):
    """Issue 42: the address's and the e-mail's tries are counted in one pipeline, each key
    as Django's cache keeps a count (``cache.get`` reads it) and living for the window; the
    e-mail's limit refuses the next try from another address."""
    settings.SIGNUP_TRIES_PER_EMAIL = 2
    settings.SIGNUP_TRY_WINDOW = 600
    cache.clear()
    backend = caches["default"]
    client = backend._cache.get_client(write=True)
    requests = [RequestFactory().post("/", REMOTE_ADDR=f"192.0.2.{n}") for n in (1, 2, 3)]
    sent = []
    real = type(client).pipeline

    def counted(self, *args, **kwargs):
        sent.append(1)
        return real(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(type(client), "pipeline", counted)
        ratelimit.signup_check(requests[0], "ann@example.org")
        ratelimit.signup_check(requests[1], "ann@example.org")
        with pytest.raises(ratelimit.TooManySignUps):
            ratelimit.signup_check(requests[2], "Ann@Example.org")
    assert len(sent) == 3  # one round trip per sign-up
    assert cache.get(f"{ratelimit.SIGNUP_PREFIX}ip:192.0.2.1") == 1
    key = backend.make_and_validate_key(f"{ratelimit.SIGNUP_PREFIX}ip:192.0.2.3")
    assert 0 < client.ttl(key) <= 600
    cache.clear()


def test_a_registrant_renamed_as_another_at_the_same_address_is_refused(
    open_event, sign_up_confirmed
):
    """One registration per address and name (DOMAIN.md "Corrections"): Léo's own page
    renaming him Julie, whose address it is too, is a form error, not a 500."""
    event = open_event(capacity=None)
    sign_up_confirmed(event, "famille@example.org", first_name="Julie")
    leo, _link = sign_up_confirmed(event, "famille@example.org", first_name="Léo")
    with pytest.raises(InvalidInput, match="already registered with this address"):
        services.registration_edit(registration=leo, first_name="JULIE")
    own = OWN.search(sent_text(Mail.objects.filter(registration=leo, kind="accepted").get()))
    client = Client()
    client.cookies["django_language"] = "en"
    answer = client.post(
        f"/registrations/{own.group(1)}/",
        {"action": "edit", "first_name": "Julie", "last_name": "Lefèvre", "public_name": "full"},
    )
    assert answer.status_code == 400 and b"already registered with this address" in answer.content
    assert Registration.objects.get(pk=leo.pk).first_name == "Léo"

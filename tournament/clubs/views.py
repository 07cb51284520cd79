"""The pages of a club's people (DOMAIN.md "Clubs and who may do what"): "my clubs" after
login, the club's people (its owners only: members and roles, invitations), the invitation's
page (a new person chooses a username and a password, a signed-in person joins), and a
person's own page (clubs and roles, the API token shown once, the password).

Views fetch, call ``tournament.clubs.services`` and redirect; every refusal is the service's
sentence, shown in the page. Who may is asked of ``tournament.access`` (``Actor``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.password_validation import password_validators_help_texts
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from tournament.access import actor_for
from tournament.clubs import selectors, services
from tournament.clubs.forms import ClubForm, InviteForm, NewAccountForm, RoleForm
from tournament.clubs.models import (
    Club,
    Invitation,
    Membership,
    Role,
    Withdrawal,
    role_phrase,
)
from tournament.errors import NotFound, ServiceError
from tournament.models import Championship, Circuit
from tournament.registration.forms import derived_slug
from tournament.site.accounts.tokens import ApiToken
from tournament.site.confirm import confirm_page, confirmed

#: The backend a new account from an invitation is logged in with (the demo's guard before
#: it logs nobody in, and has no ``get_user``).
_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _form_errors(form: Form, error: ServiceError) -> None:
    """The service's refusal on the form: under its fields where it names them."""
    placed = False
    for name, texts in error.errors.items():
        for text in texts:
            form.add_error(name if name in form.fields else None, text)
            placed = True
    if not placed:
        form.add_error(None, error.message)


def _new_championship_url(club: Club) -> str:
    try:
        return reverse("club-championship-new", args=[club.slug])
    except NoReverseMatch:  # the championship's creation page comes with its own package
        return f"/clubs/{club.slug}/championships/new/"


# --- My clubs -------------------------------------------------------------------------------


@dataclass
class ClubCard:
    club: Club
    role: str
    role_label: str
    championships: list[Championship]
    circuits: list[Circuit]
    people: list[Membership] = field(default_factory=list)
    runs: bool = False
    new_championship_url: str = ""


@require_GET
@login_required
def after_login(request: HttpRequest) -> HttpResponse:
    """Where the login lands without a ``next``: "my clubs" for a club's person or a guest
    organiser, the championships' list for anyone else."""
    user = request.user
    if (
        Membership.objects.filter(user=user).exists()
        or Championship.objects.filter(organisers=user).exists()
    ):
        return redirect("my-clubs")
    return redirect("home")


@require_GET
@login_required
def my_clubs(request: HttpRequest) -> HttpResponse:
    actor = actor_for(request)
    clubs = services.actor_clubs(actor)
    roles = dict(Membership.objects.filter(user=request.user).values_list("club_id", "role"))
    cards = []
    for club in clubs:
        role = roles.get(club.pk, "")
        runs = role in (Role.OWNER, Role.ORGANISER)
        cards.append(
            ClubCard(
                club=club,
                role=role,
                role_label=role_phrase(role) if role else "",
                championships=list(
                    Championship.objects.filter(club=club)
                    .prefetch_related("events")
                    .order_by("-season", "name")
                ),
                circuits=list(Circuit.objects.filter(club=club).order_by("name")),
                people=(
                    list(club.memberships.select_related("user").order_by("user__username"))
                    if role == Role.OWNER
                    else []
                ),
                runs=runs,
                new_championship_url=_new_championship_url(club) if runs else "",
            )
        )
    guest = list(
        Championship.objects.filter(organisers=request.user)
        .exclude(club__in=clubs)
        .prefetch_related("events")
        .order_by("-season", "name")
    )
    return render(
        request,
        "clubs/my_clubs.html",
        {"cards": cards, "guest": guest, "may_create": services.may_create_club(actor)},
    )


@login_required
def club_new(request: HttpRequest) -> HttpResponse:
    """A new club, its creator its owner (a superuser; anyone signed in on a server whose
    ``CLUBS_OPEN`` is on): its name, its slug made from the name unless typed."""
    actor = actor_for(request)
    if not services.may_create_club(actor):
        raise PermissionDenied(
            _("Only the server's operator creates clubs here: ask them for yours.")
        )
    form = ClubForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        slug = data["slug"].strip() or derived_slug(
            data["name"], taken=lambda s: Club.objects.filter(slug=s).exists()
        )
        try:
            club = services.club_create(actor=actor, slug=slug, name=data["name"])
        except ServiceError as exc:
            _form_errors(form, exc)
            return render(request, "clubs/club_new.html", {"form": form}, status=exc.status)
        messages.success(
            request,
            _(
                "%(club)s is created, and you are its owner: invite its people, then create "
                "its first championship."
            )
            % {"club": club.name},
        )
        return redirect(reverse("my-clubs") + f"#club-{club.slug}")
    status = 400 if form.is_bound else 200
    return render(request, "clubs/club_new.html", {"form": form}, status=status)


# --- The club's people ----------------------------------------------------------------------


def _owned_club(request: HttpRequest, slug: str) -> Club:
    """The club, if the user may manage its people (its owners); 404 / 403 otherwise."""
    club = get_object_or_404(Club, slug=slug)
    if not actor_for(request).can_manage_people(club):
        raise PermissionDenied(
            _("Only the owners of %(club)s see and change its people.") % {"club": club.name}
        )
    return club


_STATUS_WORDS = {
    "pending": lambda: pgettext("invitation", "waiting for an answer"),
    "accepted": lambda: pgettext("invitation", "accepted"),
    "withdrawn": lambda: pgettext("invitation", "withdrawn"),
    "expired": lambda: pgettext("invitation", "expired"),
}


def _people_page(
    request: HttpRequest, club: Club, *, invite_form: InviteForm | None = None, status: int = 200
) -> HttpResponse:
    now = timezone.now()
    members = list(club.memberships.select_related("user").order_by("user__username"))
    for member in members:
        member.role_form = RoleForm(  # type: ignore[attr-defined]
            initial={"role": member.role}, auto_id=f"id_role_{member.pk}_%s"
        )
    invitations = list(club.invitations.select_related("invited_by")[:50])
    for invitation in invitations:
        invitation.state = invitation.status(now)  # type: ignore[attr-defined]
        invitation.state_words = _STATUS_WORDS[invitation.state]()  # type: ignore[attr-defined]
        invitation.role_label = Role(invitation.role).label  # type: ignore[attr-defined]
        invitation.reason = (  # type: ignore[attr-defined]
            Withdrawal(invitation.withdrawn_why).label
            if invitation.state == "withdrawn" and invitation.withdrawn_why
            else ""
        )
    form = invite_form or InviteForm(initial={"language": services.translation_language()})
    return render(
        request,
        "clubs/people.html",
        {
            "club": club,
            "members": members,
            "invitations": invitations,
            "guest_seats": selectors.guest_seats(club=club),
            "invite_form": form,
        },
        status=status,
    )


def _ends_words(ends: services.Ends, username: str) -> list[str]:
    """What a removal or a lowered role ends, in words, for the confirmation page."""
    words = [
        _("%(username)s's guest seat on %(championship)s goes.")
        % {"username": username, "championship": str(championship)}
        for championship in ends.guest_seats
    ]
    words += [
        _("The invitation %(username)s sent to %(email)s (%(role)s) is withdrawn.")
        % {"username": username, "email": invitation.email, "role": Role(invitation.role).label}
        for invitation in ends.invitations
    ]
    return words


@require_GET
@login_required
def people(request: HttpRequest, club: str) -> HttpResponse:
    return _people_page(request, _owned_club(request, club))


@require_POST
@login_required
def invite(request: HttpRequest, club: str) -> HttpResponse:
    found = _owned_club(request, club)
    form = InviteForm(request.POST)
    if not form.is_valid():
        return _people_page(request, found, invite_form=form, status=400)
    try:
        invitation = services.invitation_send(
            actor=actor_for(request),
            club=found,
            email=form.cleaned_data["email"],
            role=form.cleaned_data["role"],
            language=form.cleaned_data["language"] or None,
        )
    except ServiceError as exc:
        _form_errors(form, exc)
        return _people_page(request, found, invite_form=form, status=exc.status)
    messages.success(
        request,
        _("Invitation sent to %(email)s as %(role)s: the link works once, for 7 days.")
        % {"email": invitation.email, "role": role_phrase(invitation.role)},
    )
    return redirect("club-people", found.slug)


def _after_change(request: HttpRequest, club: Club) -> HttpResponse:
    """Back to the people page, or to "my clubs" when the user is no longer its owner."""
    if actor_for(request).can_manage_people(club):
        return redirect("club-people", club.slug)
    return redirect("my-clubs")


@require_POST
@login_required
def member_role(request: HttpRequest, club: str, username: str) -> HttpResponse:
    """A member's new role; a lowered role first says what it ends (guest seats,
    invitations), then ends it once confirmed."""
    found = _owned_club(request, club)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a role: owner, organiser or desk."))
        return redirect("club-people", found.slug)
    role = form.cleaned_data["role"]
    try:
        ends = services.member_ends(membership=services.member_of(found, username), role=role)
    except NotFound as exc:
        messages.error(request, exc.message)
        return redirect("club-people", found.slug)
    facts = {"username": username, "role": Role(role).label, "club": found.name}
    if ends and not confirmed(request):
        return confirm_page(
            request,
            title=_("Make %(username)s %(role)s of %(club)s?") % facts,
            undoes=_ends_words(ends, username),
            confirm_label=_("Change the role"),
            cancel=reverse("club-people", args=[found.slug]),
            fields={"role": role},
        )
    try:
        membership, ends = services.member_role_set(
            actor=actor_for(request), club=found, username=username, role=role
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("club-people", found.slug)
    messages.success(
        request,
        _("%(username)s is now %(role)s of %(club)s.")
        % {"username": username, "role": role_phrase(membership.role), "club": found.name},
    )
    return _after_change(request, found)


@require_POST
@login_required
def member_remove(request: HttpRequest, club: str, username: str) -> HttpResponse:
    found = _owned_club(request, club)
    try:
        membership = services.member_of(found, username)
    except NotFound as exc:
        messages.error(request, exc.message)
        return redirect("club-people", found.slug)
    facts = {"username": username, "club": found.name, "role": role_phrase(membership.role)}
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("Remove %(username)s from %(club)s?") % facts,
            undoes=[
                _(
                    "%(username)s loses the rights of %(role)s of %(club)s at once, on every "
                    "device and through every API token."
                )
                % facts,
                *_ends_words(services.member_ends(membership=membership), username),
            ],
            note=_("To give them a place again, send a new invitation."),
            confirm_label=_("Remove %(username)s") % facts,
            cancel=reverse("club-people", args=[found.slug]),
        )
    try:
        services.member_remove(actor=actor_for(request), club=found, username=username)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("club-people", found.slug)
    messages.success(request, _("%(username)s is no longer a member of %(club)s.") % facts)
    return _after_change(request, found)


@require_POST
@login_required
def club_leave(request: HttpRequest, club: str) -> HttpResponse:
    """A member leaves the club (never its last owner), after a confirmation."""
    found = get_object_or_404(Club, slug=club)
    username = request.user.get_username()
    try:
        membership = services.member_of(found, username)
    except NotFound as exc:
        raise Http404(exc.message) from None
    facts = {"club": found.name, "role": Role(membership.role).label}
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("Leave %(club)s?") % facts,
            undoes=[
                _("You lose the rights of %(role)s of %(club)s at once, on every device and "
                  "through every API token.") % facts,
                *_ends_words(services.member_ends(membership=membership), username),
            ],
            note=_("To come back, ask an owner of the club for a new invitation."),
            confirm_label=_("Leave this club"),
            cancel=reverse("my-clubs"),
        )  # fmt: skip
    try:
        services.member_remove(actor=actor_for(request), club=found, username=username)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("You left %(club)s.") % facts)
    return redirect("my-clubs")


@require_POST
@login_required
def invitation_withdraw(request: HttpRequest, club: str, pk: int) -> HttpResponse:
    found = _owned_club(request, club)
    invitation = get_object_or_404(Invitation, pk=pk, club=found)
    facts = {"email": invitation.email}
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("Withdraw the invitation to %(email)s?") % facts,
            undoes=[_("The link sent to %(email)s opens nothing any more.") % facts],
            note=_("You can send a new invitation afterwards."),
            confirm_label=pgettext("invitation", "Withdraw"),
            cancel=reverse("club-people", args=[found.slug]),
        )
    try:
        services.invitation_withdraw(actor=actor_for(request), invitation=invitation)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The invitation to %(email)s is withdrawn.") % facts)
    return redirect("club-people", found.slug)


# --- The invitation's page ------------------------------------------------------------------


def _no_referrer(response: HttpResponse) -> HttpResponse:
    # The address holds the invitation's secret: no other site reads it in a Referer. Not
    # "no-referrer": Chromium then sends the page's own form "Origin: null", which Django's
    # CSRF check refuses.
    response["Referrer-Policy"] = "same-origin"
    return response


@never_cache
def invitation_page(request: HttpRequest, token: str) -> HttpResponse:
    try:
        invitation = services.invitation_for_token(token)
    except NotFound as exc:
        raise Http404(exc.message) from None
    context: dict[str, Any] = {
        "invitation": invitation,
        "club": invitation.club,
        "role_label": role_phrase(invitation.role),
    }
    refusal = services.invitation_refusal(invitation, timezone.now())
    if refusal is not None:
        context["refusal"] = refusal.message
        return _no_referrer(render(request, "clubs/invitation.html", context, status=410))
    form = NewAccountForm()
    status = 200
    if request.method == "POST":
        if request.POST.get("action") == "join" and request.user.is_authenticated:
            try:
                services.invitation_accept(token=token, actor=actor_for(request))
            except ServiceError as exc:
                context["join_error"] = exc.message
                status = exc.status
            else:
                return _joined(request, invitation)
        else:
            form = NewAccountForm(request.POST)
            status = 400
            if form.is_valid():
                try:
                    membership = services.invitation_accept(
                        token=token,
                        username=form.cleaned_data["username"],
                        password=form.cleaned_data["password"],
                    )
                except ServiceError as exc:
                    _form_errors(form, exc)
                    status = exc.status
                else:
                    login(request, membership.user, backend=_BACKEND)
                    return _joined(request, invitation)
    context["form"] = form
    context["password_rules"] = password_validators_help_texts()
    return _no_referrer(render(request, "clubs/invitation.html", context, status=status))


def _joined(request: HttpRequest, invitation: Invitation) -> HttpResponse:
    messages.success(
        request,
        _("Welcome to %(club)s: you are its %(role)s.")
        % {"club": invitation.club.name, "role": role_phrase(invitation.role)},
    )
    return redirect("my-clubs")


# --- A person's own page --------------------------------------------------------------------


def _me_page(request: HttpRequest, *, token: str = "") -> HttpResponse:
    user = request.user
    memberships = list(
        Membership.objects.filter(user=user).select_related("club").order_by("club__name")
    )
    for membership in memberships:
        membership.role_label = Role(membership.role).label  # type: ignore[attr-defined]
    return render(
        request,
        "clubs/me.html",
        {
            "memberships": memberships,
            "guest": list(Championship.objects.filter(organisers=user).order_by("name")),
            "tokens": list(ApiToken.objects.filter(user=user).order_by("-created_at")),
            "new_token": token,
        },
    )


@require_GET
@login_required
@never_cache
def me(request: HttpRequest) -> HttpResponse:
    return _me_page(request)


@require_POST
@login_required
@never_cache
def token_new(request: HttpRequest) -> HttpResponse:
    """A new API token, shown once on the page that answers; the old ones stop at once."""
    user = request.user
    old = ApiToken.objects.filter(user=user)
    if old.exists() and not confirmed(request):
        return confirm_page(
            request,
            title=_("Make a new API token?"),
            undoes=[
                _(
                    "Your current token stops working at once: every script or laptop using "
                    "it needs the new one."
                )
            ],
            confirm_label=_("Make a new token"),
            cancel=reverse("me"),
        )
    with transaction.atomic():
        old.delete()
        raw = ApiToken.issue(user)
    return _me_page(request, token=raw)

"""The league's organiser pages (DOMAIN.md "A season across clubs"), from the club's menu
("My clubs"): the club's leagues and a new one; a league's rounds (an event of any club
proposed, a round withdrawn); and, for an event's club, the rounds other clubs' leagues
propose to its events (accepted or declined). Phone first.

Views fetch, call ``standings.leagues.services`` and redirect; every refusal is the service's
sentence, shown in the page. A league's rounds page is its organisers' only (others told
nothing, as its matching page); a club's pages are its owners' and organisers'."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from standings.leagues import selectors, services
from standings.leagues.models import League, Round
from tournament.access import Actor, actor_for
from tournament.clubs.models import Club
from tournament.errors import ServiceError
from tournament.models import Championship, Event
from tournament.registration.forms import apply_errors, derived_slug, validate_one_line
from tournament.registration.scales import DEFAULT_POINTS_SCALE, parse_scale
from tournament.site.confirm import confirm_page, confirmed


class LeagueForm(forms.Form):
    """A club's new league: its address is made from the name and the season."""

    name = forms.CharField(
        label=gettext_lazy("Name"), max_length=200, validators=[validate_one_line]
    )
    season = forms.CharField(
        label=gettext_lazy("Season"), max_length=20, validators=[validate_one_line]
    )
    points_scale = forms.CharField(
        label=gettext_lazy("Points scale"),
        max_length=400,
        initial="-".join(str(points) for points in DEFAULT_POINTS_SCALE),
        help_text=gettext_lazy(
            "Points of the 1st, 2nd, 3rd… separated by dashes, spaces or commas."
        ),
    )
    points_mode = forms.ChoiceField(
        label=gettext_lazy("Points mode"),
        choices=Championship.PointsMode,
        initial=Championship.PointsMode.PER_TABLE,
    )
    best_results = forms.IntegerField(
        label=gettext_lazy("Best results counted"),
        required=False,
        min_value=1,
        max_value=100,
        help_text=gettext_lazy("Leave empty to count every result."),
    )
    club_best = forms.IntegerField(
        label=gettext_lazy("Clubs' cup: best players of a club per round"),
        min_value=1,
        max_value=100,
        initial=3,
    )

    def clean_points_scale(self) -> list[int]:
        scale, error = parse_scale(self.cleaned_data.get("points_scale", ""))
        if error:
            raise forms.ValidationError(error)
        return scale or []

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("name") and data.get("season"):
            data["slug"] = derived_slug(
                f"{data['name']} {data['season']}",
                taken=lambda s: League.objects.filter(slug=s).exists(),
            )
            if not data["slug"]:
                self.add_error(
                    "name",
                    _("Give the league a name with a letter or a digit: its address is "
                      "made from it."),
                )  # fmt: skip
        return data


def _running(request: HttpRequest, slug: str) -> tuple[Actor, Club]:
    """The club, if the user runs it (its owners and organisers); 404 / 403 otherwise."""
    club = get_object_or_404(Club, slug=slug)
    actor = actor_for(request)
    if not actor.can_run_club(club):
        raise PermissionDenied(
            _("Only the owners and organisers of %(club)s run its leagues.") % {"club": club.name}
        )
    return actor, club


def _league_of(request: HttpRequest, slug: str) -> tuple[Actor, League]:
    """The league, if the user is one of its organisers; others are told nothing (404)."""
    actor = actor_for(request)
    league = League.objects.select_related("club").filter(slug=slug).first()
    if league is None or not services.may_run_league(actor, league):
        raise Http404
    return actor, league


# --- The club's leagues --------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def club_leagues(request: HttpRequest, club: str) -> HttpResponse:
    """GET: the club's leagues and the form of a new one; POST: the new league."""
    actor, found = _running(request, club)
    form = LeagueForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                league = services.league_create(
                    actor=actor, club=found, slug=data["slug"], name=data["name"],
                    season=data["season"], points_scale=data["points_scale"],
                    points_mode=data["points_mode"], best_results=data["best_results"],
                    club_best=data["club_best"],
                )  # fmt: skip
            except ServiceError as exc:
                apply_errors(form, exc)
                status = exc.status
            else:
                messages.success(
                    request,
                    _("%(league)s is created: propose its rounds, events of any club.")
                    % {"league": league.name},
                )
                return redirect("league-rounds", slug=league.slug)
    context = {
        "club": found,
        "leagues": selectors.club_leagues(club=found),
        "waiting": sum(
            1
            for round_ in selectors.club_round_requests(club=found)
            if round_.status == Round.Status.PROPOSED
        ),
        "form": form,
    }
    return render(request, "leagues/club_leagues.html", context, status=status)


# --- A league's rounds -----------------------------------------------------------------------


def _event(request: HttpRequest) -> Event | None:
    """The event chosen in the list, or typed by its slug (the typed one wins)."""
    slug = (request.POST.get("event_slug") or request.POST.get("event") or "").strip()
    return Event.objects.select_related("championship").filter(slug=slug[:100]).first()


@require_http_methods(["GET", "POST"])
@login_required
def league_rounds(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the league's rounds and the events it may propose; POST: propose one."""
    actor, league = _league_of(request, slug)
    if request.method == "POST":
        event = _event(request)
        if event is None:
            messages.error(request, _("Choose an event, or type its address (its slug)."))
        else:
            try:
                round_ = services.round_propose(actor=actor, league=league, event=event)
            except ServiceError as exc:
                messages.error(request, exc.message)
            else:
                if round_.status == Round.Status.COUNTED:
                    text = _("%(event)s counts in the league: it is your club's.")
                else:
                    text = _("%(event)s is proposed: its club's owners are told by mail.")
                messages.success(request, text % {"event": event.name})
        return redirect("league-rounds", slug=league.slug)
    return render(
        request,
        "leagues/league_rounds.html",
        {
            "league": league,
            "rounds": selectors.league_rounds(league=league),
            "events": selectors.proposable_events(league=league, today=timezone.localdate()),
        },
    )


@require_POST
@login_required
def league_round_withdraw(request: HttpRequest, slug: str, event: str) -> HttpResponse:
    """The league stops counting a round, after a confirmation."""
    actor, league = _league_of(request, slug)
    round_ = get_object_or_404(
        Round.objects.select_related("event", "league__club"), league=league, event__slug=event
    )
    back = reverse("league-rounds", args=[league.slug])
    if not confirmed(request):
        return confirm_page(
            request,
            title=_("Withdraw %(event)s from %(league)s?")
            % {
                "event": round_.event.name,
                "league": league.name,
            },  # fmt: skip
            undoes=[_("The league stops counting its results; its event is unchanged.")],
            confirm_label=_("Withdraw the round"),
            cancel=back,
        )
    try:
        services.round_withdraw(actor=actor, round_=round_)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("%(event)s is withdrawn.") % {"event": round_.event.name})
    return redirect(back)


# --- The rounds proposed to a club's events ------------------------------------------------


@require_GET
@login_required
def club_league_rounds(request: HttpRequest, club: str) -> HttpResponse:
    """The rounds other clubs' leagues propose to the club's events, to accept or decline."""
    _actor, found = _running(request, club)
    return render(
        request,
        "leagues/club_rounds.html",
        {"club": found, "rounds": selectors.club_round_requests(club=found)},
    )


def _decide(request: HttpRequest, club: str, pk: int, *, accept: bool) -> HttpResponse:
    actor, found = _running(request, club)
    round_ = get_object_or_404(
        Round.objects.select_related("league__club", "event__championship"),
        pk=pk,
        event__championship__club=found,
    )
    back = reverse("club-league-rounds", args=[found.slug])
    facts = {"event": round_.event.name, "league": round_.league.name}
    if not accept and not confirmed(request):
        return confirm_page(
            request,
            title=_("Decline to count %(event)s in %(league)s?") % facts,
            undoes=(
                [_("The league stops counting the results of %(event)s.") % facts]
                if round_.status == Round.Status.COUNTED
                else []
            ),
            note=_("You may accept it later."),
            confirm_label=_("Decline"),
            cancel=back,
        )
    try:
        if accept:
            services.round_accept(actor=actor, round_=round_)
        else:
            services.round_decline(actor=actor, round_=round_)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        text = (
            _("%(event)s counts in %(league)s.")
            if accept
            else _("%(event)s is kept out of %(league)s.")
        )
        messages.success(request, text % facts)
    return redirect(back)


@require_POST
@login_required
def club_league_round_accept(request: HttpRequest, club: str, pk: int) -> HttpResponse:
    return _decide(request, club, pk, accept=True)


@require_POST
@login_required
def club_league_round_decline(request: HttpRequest, club: str, pk: int) -> HttpResponse:
    return _decide(request, club, pk, accept=False)


urlpatterns = [
    path("clubs/<slug:club>/leagues/", club_leagues, name="club-leagues"),
    path("clubs/<slug:club>/league-rounds/", club_league_rounds, name="club-league-rounds"),
    path(
        "clubs/<slug:club>/league-rounds/<int:pk>/accept/",
        club_league_round_accept,
        name="club-league-round-accept",
    ),
    path(
        "clubs/<slug:club>/league-rounds/<int:pk>/decline/",
        club_league_round_decline,
        name="club-league-round-decline",
    ),
    path("l/<slug:slug>/rounds/", league_rounds, name="league-rounds"),
    path(
        "l/<slug:slug>/rounds/<slug:event>/withdraw/",
        league_round_withdraw,
        name="league-round-withdraw",
    ),
]

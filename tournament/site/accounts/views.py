"""The pages of a stranger's account on a server open to clubs (DOMAIN.md "A server open to
clubs"): the sign-up (username, address, password by the first start's rules), "check your
mail", the confirmation (a button: a mail scanner opening the link makes nothing), then
"make a club" or "wait for an invitation". And the password reset's form, whose mail leaves
through the outbox, never inside the request (``selfservice.password_reset_ask``).

A budget spent is the 429 page saying when to try again, in the person's language, with
``Retry-After``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.password_validation import password_validators_help_texts
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from tournament.clubs.forms import NewAccountForm
from tournament.errors import NotFound, ServiceError
from tournament.registration.forms import apply_errors
from tournament.site import ratelimit
from tournament.site.accounts import selfservice

#: The backend a new account is logged in with (the demo's guard logs nobody in).
_BACKEND = "django.contrib.auth.backends.ModelBackend"


class SignUpForm(NewAccountForm):
    email = forms.EmailField(
        label=_("E-mail address"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=_("Paddock sends it a link: your account exists once you open it."),
    )
    field_order = ["username", "email", "password", "password_again"]


def too_many(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    """The 429 page: the sentence says when to try again; ``Retry-After`` the seconds."""
    response = render(request, "history/too_many.html", {"message": exc.message}, status=429)
    retry_after = getattr(exc, "retry_after", None)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def _open() -> None:
    if not selfservice.accounts_open():
        raise Http404(_("Accounts are made by invitation on this server: ask a club's owner."))


@never_cache
def signup(request: HttpRequest) -> HttpResponse:
    _open()
    if request.user.is_authenticated:
        return redirect("my-clubs")
    form = SignUpForm(request.POST if request.method == "POST" else None)
    status = 200
    if form.is_bound:
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                selfservice.account_request(
                    client=ratelimit.client_key(request),
                    username=data["username"],
                    email=data["email"],
                    password=data["password"],
                    language=getattr(request, "LANGUAGE_CODE", None),
                )
            except ratelimit.OverBudget as exc:
                return too_many(request, exc)
            except ServiceError as exc:
                apply_errors(form, exc)
                status = exc.status
            else:
                return redirect("account-sent")
    context = {"form": form, "password_rules": password_validators_help_texts()}
    return render(request, "accounts/signup.html", context, status=status)


@require_GET
def signup_sent(request: HttpRequest) -> HttpResponse:
    _open()
    return render(request, "accounts/sent.html")


def _no_referrer(response: HttpResponse) -> HttpResponse:
    # The address holds the link's secret (as the invitation's page: tournament.clubs.views).
    response["Referrer-Policy"] = "same-origin"
    return response


@never_cache
def confirm(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows the button (a mail scanner's visit makes nothing); POST makes the account,
    signs its person in and offers the next steps."""
    _open()
    context: dict[str, Any] = {}
    try:
        found = selfservice.account_for_token(token)
    except NotFound as exc:
        raise Http404(exc.message) from None
    except ServiceError as exc:
        context["refusal"] = exc.message
        return _no_referrer(render(request, "accounts/confirm.html", context, status=410))
    context["username"] = found.username
    if request.method != "POST":
        return _no_referrer(render(request, "accounts/confirm.html", context))
    try:
        user = selfservice.account_confirm(token=token)
    except ServiceError as exc:
        context["refusal"] = exc.message
        return _no_referrer(render(request, "accounts/confirm.html", context, status=exc.status))
    login(request, user, backend=_BACKEND)
    return redirect("account-welcome")


@require_GET
@login_required
def welcome(request: HttpRequest) -> HttpResponse:
    """The next steps of a new account: make a club, or wait for an invitation."""
    _open()
    return render(request, "accounts/welcome.html")


class PasswordResetView(auth_views.PasswordResetView):
    """Django's form; its mail written and sent by a task (the same work for any address),
    the request only counted (429 past the budget)."""

    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            selfservice.password_reset_ask(
                client=ratelimit.client_key(self.request),
                email=form.cleaned_data["email"],
                language=getattr(self.request, "LANGUAGE_CODE", None),
            )
        except ratelimit.OverBudget as exc:
            return too_many(self.request, exc)
        return redirect(self.success_url)

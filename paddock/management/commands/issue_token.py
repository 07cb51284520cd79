"""``python manage.py issue_token <username>``: print a new API token for that user."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tournament.models import ApiToken


class Command(BaseCommand):
    help = gettext_lazy(
        "Print a new API token for an organiser (only its hash is stored: it is shown once)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username", help=_("The user the token acts as."))

    def handle(self, *args: Any, **options: Any) -> None:
        username = options["username"]
        user_model = get_user_model()
        try:
            user = user_model._default_manager.get_by_natural_key(username)
        except user_model.DoesNotExist:
            raise CommandError(
                _("No user is named “%(username)s”; create it first (createsuperuser).")
                % {"username": username}
            ) from None
        if not user.is_active:
            raise CommandError(
                _("The user “%(username)s” is inactive: a token would be refused.")
                % {"username": username}
            )
        self.stdout.write(ApiToken.issue(user))

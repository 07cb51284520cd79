"""``make run``'s mails (DEBUG, no ``EMAIL_HOST``): written to files in ``MAIL_DIR`` rather
than sent. They carry the registrants' own links (secrets), so the folder is this account's
only (0700) and each file too (0600); and each mail written says so on the console, among
the server's lines, where the person trying Paddock looks (a line printed before
runserver's banner scrolled away)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from django.core.mail import EmailMessage
from django.core.mail.backends.filebased import EmailBackend as FileEmailBackend

#: The folder's and the files' modes.
FOLDER_MODE = 0o700
FILE_MODE = 0o600


class EmailBackend(FileEmailBackend):
    """Django's file backend, private, and saying where each mail went."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        os.chmod(self.file_path, FOLDER_MODE)

    def open(self) -> bool:
        if self.stream is None:
            descriptor = os.open(
                self._get_filename(), os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE
            )
            os.fchmod(descriptor, FILE_MODE)  # an older file of looser mode, too
            self.stream = os.fdopen(descriptor, "ab")
            return True
        return False

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        sent = super().send_messages(email_messages)
        for message in list(email_messages)[:sent]:
            sys.stderr.write(
                f"Mail to {', '.join(message.recipients())} ({message.subject}) written to "
                f"{self._get_filename()}: open it there to follow its link.\n"
            )
        return sent

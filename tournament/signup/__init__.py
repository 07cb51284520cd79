"""Sign-up before the day: the event's announcement, registrations, the waiting list, the
mails that tell each registrant what changed (DOMAIN.md "Before the day")."""

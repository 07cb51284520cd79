"""WSGI entry point (gunicorn paddock.wsgi).

Under gunicorn, each worker builds the day's public pages as it starts, before its first
request (``tournament.public.warming``): a restarted server meets the room warm.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paddock.settings")
application = get_wsgi_application()

# Imported once Django is set up (it reads models); gunicorn's arbiter names itself in
# SERVER_SOFTWARE for its workers, and nothing else that imports this module does.
from tournament.public.warming import warm_before_serving  # noqa: E402

if os.environ.get("SERVER_SOFTWARE", "").startswith("gunicorn/"):
    warm_before_serving()

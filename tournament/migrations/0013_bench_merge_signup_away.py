# The signup and away branches each added a 0012 migration; the bench runs them both.
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0012_away_registration_origin"),
        ("tournament", "0012_signup_link_sealed"),
    ]

    operations = []

# The round's three branches (security, the event away, sign-up) each added a 0012.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('tournament', '0012_away_registration_origin'),
        ('tournament', '0012_security_player_claimed_licence'),
        ('tournament', '0012_signup_link_sealed'),
    ]

    operations = [
    ]

"""Referee links at rest (issue 14): each qualifying table keeps its link's SHA-256 digest
and a copy sealed with a key derived from SECRET_KEY, no longer the link itself; history
rows too. Run it with the server's own SECRET_KEY."""

from django.db import migrations, models

from tournament.sealing import link_digest, seal, unseal



def _checks_now(schema_editor):
    # The change counters' triggers (tournament.public.freshness) are deferred constraint triggers:
    # fired now, so that this migration may alter the table after writing its rows.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")

def seal_links(apps, schema_editor):
    _checks_now(schema_editor)
    for model_name in ("QualifyingTable", "HistoricalQualifyingTable"):
        model = apps.get_model("qualifying", model_name)
        for row in model._default_manager.only("pk", "token").iterator():
            row.token_digest = link_digest(row.token)
            row.token_sealed = seal(row.token)
            row.save(update_fields=["token_digest", "token_sealed"])


def open_links(apps, schema_editor):
    _checks_now(schema_editor)
    # Back to the links themselves (a row no key opens keeps its digest instead).
    for model_name in ("QualifyingTable", "HistoricalQualifyingTable"):
        model = apps.get_model("qualifying", model_name)
        for row in model._default_manager.iterator():
            row.token = unseal(row.token_sealed) or row.token_digest
            row.save(update_fields=["token"])


class Migration(migrations.Migration):
    dependencies = [
        ("qualifying", "0003_history_tables_seats"),
    ]

    operations = [
        migrations.AlterField(
            model_name="qualifyingtable",
            name="token",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="qualifyingtable",
            name="token_digest",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="qualifyingtable",
            name="token_sealed",
            field=models.CharField(default="", editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name="historicalqualifyingtable",
            name="token_digest",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="historicalqualifyingtable",
            name="token_sealed",
            field=models.CharField(default="", editable=False, max_length=200),
        ),
        migrations.RunPython(seal_links, open_links, elidable=False),
        migrations.RemoveField(model_name="qualifyingtable", name="token"),
        migrations.RemoveField(model_name="historicalqualifyingtable", name="token"),
        migrations.AlterField(
            model_name="qualifyingtable",
            name="token_digest",
            field=models.CharField(editable=False, max_length=64, unique=True),
        ),
        migrations.AlterField(
            model_name="qualifyingtable",
            name="token_sealed",
            field=models.CharField(editable=False, max_length=200),
        ),
        migrations.AlterField(
            model_name="historicalqualifyingtable",
            name="token_digest",
            field=models.CharField(db_index=True, editable=False, max_length=64),
        ),
        migrations.AlterField(
            model_name="historicalqualifyingtable",
            name="token_sealed",
            field=models.CharField(editable=False, max_length=200),
        ),
    ]

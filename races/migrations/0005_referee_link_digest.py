"""Referee links at rest (issue 14): each race table keeps its link's SHA-256 digest and a
copy sealed with a key derived from SECRET_KEY, no longer the link itself; history rows and
replaced links keep the digest only; the stored PDF of a batch of sheets (every link of an
event) is sealed. Run it with the server's own SECRET_KEY."""

from django.db import migrations, models

import tournament.sealing
from tournament.sealing import link_digest, seal, seal_bytes, unseal, unseal_bytes



def _checks_now(schema_editor):
    # The change counters' triggers (tournament.public.freshness) are deferred constraint triggers:
    # fired now, so that this migration may alter the table after writing its rows.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")

def seal_links(apps, schema_editor):
    _checks_now(schema_editor)
    for model_name in ("RaceTable", "HistoricalRaceTable"):
        model = apps.get_model("races", model_name)
        for row in model._default_manager.only("pk", "token").iterator():
            row.token_digest = link_digest(row.token)
            row.token_sealed = seal(row.token)
            row.save(update_fields=["token_digest", "token_sealed"])
    replaced = apps.get_model("races", "ReplacedLink")
    for row in replaced._default_manager.iterator():
        row.digest = link_digest(row.token)
        row.save(update_fields=["digest"])


def open_links(apps, schema_editor):
    _checks_now(schema_editor)
    # Back to the links themselves (a row no key opens keeps its digest instead); replaced
    # links keep the digest: what they held in clear is kept nowhere any more.
    for model_name in ("RaceTable", "HistoricalRaceTable"):
        model = apps.get_model("races", model_name)
        for row in model._default_manager.iterator():
            row.token = unseal(row.token_sealed) or row.token_digest
            row.save(update_fields=["token"])
    replaced = apps.get_model("races", "ReplacedLink")
    for row in replaced._default_manager.iterator():
        row.token = row.digest
        row.save(update_fields=["token"])


def seal_batches(apps, schema_editor):
    _checks_now(schema_editor)
    # Still a plain BinaryField here: what is written is stored as it is.
    batches = apps.get_model("races", "SheetBatch")
    for batch in batches._default_manager.exclude(pdf=None).iterator():
        batch.pdf = seal_bytes(bytes(batch.pdf))
        batch.save(update_fields=["pdf"])


def open_batches(apps, schema_editor):
    _checks_now(schema_editor)
    batches = apps.get_model("races", "SheetBatch")
    for batch in batches._default_manager.exclude(pdf=None).iterator():
        batch.pdf = unseal_bytes(bytes(batch.pdf))
        batch.save(update_fields=["pdf"])


class Migration(migrations.Migration):
    dependencies = [
        ("races", "0004_history_weather_draws"),
        ("qualifying", "0004_referee_link_digest"),
    ]

    operations = [
        migrations.AlterField(
            model_name="racetable",
            name="token",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AlterField(
            model_name="replacedlink",
            name="token",
            field=models.CharField(default="", max_length=64),
        ),
        migrations.AddField(
            model_name="racetable",
            name="token_digest",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="racetable",
            name="token_sealed",
            field=models.CharField(default="", editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name="historicalracetable",
            name="token_digest",
            field=models.CharField(default="", editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="historicalracetable",
            name="token_sealed",
            field=models.CharField(default="", editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name="replacedlink",
            name="digest",
            field=models.CharField(default="", max_length=64),
        ),
        migrations.RunPython(seal_links, open_links, elidable=False),
        migrations.RemoveField(model_name="racetable", name="token"),
        migrations.RemoveField(model_name="historicalracetable", name="token"),
        migrations.RemoveField(model_name="replacedlink", name="token"),
        migrations.AlterField(
            model_name="racetable",
            name="token_digest",
            field=models.CharField(editable=False, max_length=64, unique=True),
        ),
        migrations.AlterField(
            model_name="racetable",
            name="token_sealed",
            field=models.CharField(editable=False, max_length=200),
        ),
        migrations.AlterField(
            model_name="historicalracetable",
            name="token_digest",
            field=models.CharField(db_index=True, editable=False, max_length=64),
        ),
        migrations.AlterField(
            model_name="historicalracetable",
            name="token_sealed",
            field=models.CharField(editable=False, max_length=200),
        ),
        migrations.AlterField(
            model_name="replacedlink",
            name="digest",
            field=models.CharField(max_length=64, unique=True),
        ),
        migrations.RunPython(seal_batches, open_batches, elidable=False),
        migrations.AlterField(
            model_name="sheetbatch",
            name="pdf",
            field=tournament.sealing.SealedBinaryField(blank=True, editable=False, null=True),
        ),
    ]

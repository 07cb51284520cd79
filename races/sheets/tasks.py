"""Background tasks: thin, take ids, safe to run twice (the batch's PDF is replaced)."""

from __future__ import annotations

from celery import shared_task
from django.utils import translation

from qualifying.links import referee_link
from qualifying.models import QualifyingTable
from qualifying.sheets.selectors import sheet_data
from qualifying.sheets.table_sheet import TableSheetRenderer
from races import variants
from races.models import SheetBatch
from races.sheets.pdf import RaceSheetRenderer
from races.sheets.selectors import race_sheets


def _progress(batch_id: int):  # type: ignore[no-untyped-def]
    def report(done: int, total: int) -> None:
        SheetBatch.objects.filter(pk=batch_id).update(done=done, total=total)

    return report


def build_sheets_pdf(batch: SheetBatch) -> bytes:
    """All the sheets of the batch's event and kind, in one PDF."""
    report = _progress(batch.pk)
    with translation.override(batch.language):
        game_sheets = variants.variant_of(batch.event.game).sheets
        if batch.kind == SheetBatch.Kind.RACE and game_sheets is not None:
            return game_sheets(event=batch.event, language=batch.language, progress=report)
        if batch.kind == SheetBatch.Kind.RACE:
            sheets = race_sheets(event=batch.event, language=batch.language)
            report(0, len(sheets))
            return RaceSheetRenderer().render_many(sheets, progress=report)
        tables = QualifyingTable.objects.filter(event=batch.event).select_related(
            "event", "event__championship", "event__circuit"
        )
        data = [sheet_data(table=t, language=batch.language, link=referee_link(t)) for t in tables]
        report(0, len(data))
        return TableSheetRenderer().render_many(data, progress=report)


@shared_task(name="races.build_sheet_batch")
def build_sheet_batch(batch_id: int) -> str:
    batch = (
        SheetBatch.objects.select_related("event", "event__championship", "event__circuit")
        .filter(pk=batch_id)
        .first()
    )
    if batch is None:  # deleted meanwhile: nothing to do
        return "missing"
    SheetBatch.objects.filter(pk=batch_id).update(status=SheetBatch.Status.RUNNING)
    try:
        pdf = build_sheets_pdf(batch)
    except Exception as exc:  # the desk must see it failed rather than wait forever
        SheetBatch.objects.filter(pk=batch_id).update(
            status=SheetBatch.Status.FAILED, error=str(exc)[:300]
        )
        raise
    SheetBatch.objects.filter(pk=batch_id).update(status=SheetBatch.Status.DONE, pdf=pdf)
    return "done"

"""How matching by QR code behaves on the photos a hall makes: blurred, dark, a thumb over the
code, taken at a steep angle. ``python -m bench.photo_matching`` prints how many of each
set were matched to their table (and writes ``bench/photo_matching.json``).

Every photo is made here (``bench.camera``) from a race sheet rendered as the desk prints it,
12 megapixels (3000 × 4000, as a phone takes it), then read as the server reads a photo
sent to the desk (``races.photos.images.normalise``, ``races.photos.matching``).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "bench" / "photo_matching.json"
SEEDS = (1, 2, 3)

#: (set, what varies, the shots): each shot is taken with every seed (angle and jitter vary).
SETS = [
    ("blur", "Gaussian blur radius, px of a 4000 px photo", [1, 2, 4, 6, 8, 12]),
    ("dark", "brightness (1 = a lit hall)", [0.5, 0.3, 0.2, 0.12, 0.08, 0.05]),
    ("covered", "share of the code's width under a thumb", [0.05, 0.1, 0.15, 0.2, 0.3, 0.5]),
    ("steep", "perspective: far edge narrower by", [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]),
]


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paddock.settings")
    os.environ.setdefault("DEBUG", "true")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import random

    import zxingcpp

    from bench import camera
    from races.photos.images import normalise
    from races.photos.matching import sheet_links
    from races.sheets.data import GridLine, RaceSheetData
    from races.sheets.pdf import RaceSheetRenderer

    secret = "k3Jq0vYx_Ptm-2sLw9ZaQe7RbN4cUd1F"
    link = f"http://192.168.1.20:8000/r/{secret}/"
    data = RaceSheetData(
        championship="Championnat de France Formule Dé",
        event="Journée 3 — Grand Prix de Nevers",
        date=datetime.date(2026, 7, 14),
        circuit="Magny-Cours",
        laps=3,
        table_number=4,
        referee="Anaïs Bérard",
        weather="sun",
        track="dry",
        grid=[GridLine(n, 10 + n, f"Pilote {n}", None, None, None) for n in range(1, 11)],
        referee_link=link,
    )
    page = camera.printed(RaceSheetRenderer().render(data), dpi=200)
    (code,) = zxingcpp.read_barcodes(page, formats=zxingcpp.BarcodeFormat.QRCode)
    corners = [code.position.top_left, code.position.bottom_right]
    qr_box = (corners[0].x, corners[0].y, corners[1].x, corners[1].y)

    results: dict[str, dict] = {}
    started = time.perf_counter()
    for name, varies, values in SETS:
        rows = []
        for value in values:
            matched = 0
            for seed in SEEDS:
                rng = random.Random(seed * 97 + len(rows))
                shot = camera.Shot(
                    width=4000,
                    angle=rng.uniform(-15, 15),
                    tilt=value if name == "steep" else 0.12,
                    blur=value if name == "blur" else 0.0,
                    light=value if name == "dark" else 1.0,
                    cover=value if name == "covered" else 0.0,
                    seed=seed,
                )
                photo = camera.photograph(page, shot, qr_box=qr_box).resize((3000, 4000))
                image = normalise(camera.jpeg(photo, quality=85), max_bytes=50_000_000)
                links = sheet_links(image.picture, first_look=image.stored)
                matched += any(found.secret == secret for found in links)
            rows.append({"value": value, "matched": matched, "of": len(SEEDS)})
            print(f"{name:8} {value:>5}: {matched}/{len(SEEDS)}", flush=True)
        results[name] = {"varies": varies, "rows": rows}
    total = sum(row["matched"] for s in results.values() for row in s["rows"])
    count = sum(row["of"] for s in results.values() for row in s["rows"])
    summary = {
        "photos": count,
        "matched": total,
        "megapixels": 12,
        "seconds": round(time.perf_counter() - started, 1),
        "sets": results,
    }
    OUTPUT.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"matched {total} of {count} photos; written to {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

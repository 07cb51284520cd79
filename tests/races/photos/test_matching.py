"""Which sheet a photo shows, by its QR code (``races.photos.matching``): the referee link a
sheet prints, read back from its text, and from the picture itself."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from races.photos.matching import SheetLink, sheet_link, sheet_links
from tournament.documents.printing import qr_modules
from tournament.sealing import new_link_secret

SECRET = "k3Jq0vYx_Ptm-2sLw9ZaQe7RbN4cUd1F"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"http://192.168.1.20:8000/r/{SECRET}/", SheetLink("race", SECRET)),
        (f"https://paddock.example/r/{SECRET}", SheetLink("race", SECRET)),
        (f"http://127.0.0.1:8000/q/{SECRET}/", SheetLink("qualifying", SECRET)),
        (f"  http://10.0.0.2/r/{SECRET}/\n", SheetLink("race", SECRET)),
        (f"http://10.0.0.2/r/{SECRET}/sheet.pdf", None),
        (f"http://10.0.0.2/x/r/{SECRET}/", None),
        ("http://10.0.0.2/r/short/", None),
        ("WIFI:S:paddock;T:WPA;P:secret;;", None),
        ("http://[::1", None),
        ("", None),
    ],
)
def test_the_link_of_a_sheet_is_read_from_a_code_s_text(text: str, found: SheetLink | None) -> None:
    assert sheet_link(text) == found


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120))
def test_any_text_is_a_link_or_none_never_an_error(text: str) -> None:
    found = sheet_link(text)
    assert found is None or found.secret in text


@given(
    st.sampled_from(["r", "q"]),
    st.from_regex(r"https?://[a-z0-9.]{1,20}(:[0-9]{2,5})?", fullmatch=True),
)
def test_every_printed_link_reads_back_as_itself(kind: str, site: str) -> None:
    secret = new_link_secret()
    found = sheet_link(f"{site}/{kind}/{secret}/")
    assert found == SheetLink("race" if kind == "r" else "qualifying", secret)


def qr_picture(text: str, *, module: int = 6) -> Image.Image:
    """``text``'s QR code as the sheets print it (``qr_modules``), on white."""
    rows = qr_modules(text)
    size = len(rows)
    picture = Image.new("L", (size + 8, size + 8), 255)
    for y, row in enumerate(rows):
        for x, value in enumerate(row):
            if value == 0:
                picture.putpixel((x + 4, y + 4), 0)
    return picture.resize(
        (picture.width * module, picture.height * module), Image.Resampling.NEAREST
    )


def test_a_code_is_read_at_any_quarter_turn_and_on_a_large_picture() -> None:
    code = qr_picture(f"http://192.168.1.20:8000/r/{SECRET}/")
    for turn in (0, 90, 180, 270):
        assert sheet_links(code.rotate(turn, expand=True)) == [SheetLink("race", SECRET)]
    large = Image.new("L", (5000, 3000), 200)
    large.paste(code.resize((code.width * 2, code.height * 2)), (4000, 100))
    assert sheet_links(large) == [SheetLink("race", SECRET)]


def test_a_dark_picture_is_read_once_its_contrast_is_stretched() -> None:
    code = qr_picture(f"http://192.168.1.20:8000/r/{SECRET}/")
    dark = code.point(lambda v: 8 + v // 40)  # black 8, white 14: a hall without light
    assert sheet_links(dark) == [SheetLink("race", SECRET)]


def test_a_picture_without_a_sheet_s_code_has_no_link() -> None:
    other = qr_picture("https://example.org/menu")
    out = io.BytesIO()
    other.save(out, format="PNG")
    assert sheet_links(Image.open(io.BytesIO(out.getvalue()))) == []

"""An image as a careful server treats it (``races.photos.images``): only photos of a sane
size are opened; what is stored is upright, re-encoded from the pixels alone (no EXIF, no
GPS position), capped in pixels, with a thumbnail."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bench import camera
from races.photos.images import (
    LONGEST_SIDE,
    MAX_STORED_BYTES,
    THUMBNAIL_SIDE,
    BadImage,
    normalise,
)
from tests.races.photos import images

LIMIT = 20 * 1024 * 1024


@pytest.fixture(scope="module")
def noisy_photo() -> bytes:
    """A photo past the stored size, of pure noise: the worst case for JPEG's bytes."""
    image = Image.effect_noise((2800, 2100), 80).convert("RGB")
    return camera.jpeg(image, quality=92)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"", "empty"),
        (b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n", "not a photo"),
        (b"GIF89a" + b"\x00" * 40, "not a photo"),
        (images.truncated_jpeg(), "damaged or incomplete"),
        (images.decompression_bomb(), "pixels"),
    ],
    ids=["empty", "pdf", "gif", "truncated", "bomb"],
)
def test_a_bad_file_is_refused_with_a_sentence(data: bytes, says: str) -> None:
    with pytest.raises(BadImage, match=says):
        normalise(data, max_bytes=LIMIT)


def test_a_file_over_the_limit_is_refused_before_it_is_opened() -> None:
    with pytest.raises(BadImage, match=r"too large \(1\.0.MB\)"):
        normalise(b"\xff\xd8" + b"\x00" * (1024 * 1024 - 2), max_bytes=1000)


def test_the_exif_orientation_is_applied_then_every_metadata_field_dropped() -> None:
    stored = normalise(images.oriented_jpeg(orientation=6), max_bytes=LIMIT)
    image = Image.open(io.BytesIO(stored.jpeg))
    # 6 = "turn 90° clockwise to show": the landscape picture is stored upright, portrait,
    # its red top-left corner now at the top right.
    assert image.size == (200, 400) == (stored.width, stored.height)
    red = image.getpixel((180, 20))
    assert red[0] > 200 and red[1] < 60, red
    assert not image.getexif() and "exif" not in image.info
    assert b"Exif" not in stored.jpeg and b"GPS" not in stored.jpeg
    assert b"Exif" not in stored.thumbnail


def test_the_phone_exif_really_carries_a_gps_position() -> None:
    """The input the test above strips does hold a position (else it proves nothing)."""
    sent = Image.open(io.BytesIO(images.oriented_jpeg()))
    assert sent.getexif().get_ifd(camera.GPS_IFD)[camera.GPS_LATITUDE] == (48.0, 51.0, 24.0)


def test_a_heic_photo_is_accepted_upright_and_stripped() -> None:
    picture = Image.new("RGB", (320, 240), "white")
    picture.paste((255, 0, 0), (0, 0, 40, 40))
    sent = camera.heic(picture, orientation=6)  # an iPhone held upright
    assert Image.open(io.BytesIO(sent)).format == "HEIF"
    stored = normalise(sent, max_bytes=LIMIT)
    image = Image.open(io.BytesIO(stored.jpeg))
    assert image.format == "JPEG" and image.size == (240, 320)
    red = image.getpixel((220, 20))
    assert red[0] > 200 and red[1] < 60, red
    assert not image.getexif() and b"GPS" not in stored.jpeg


def test_transparency_is_laid_on_white() -> None:
    stored = normalise(images.transparent_png(), max_bytes=LIMIT)
    image = Image.open(io.BytesIO(stored.jpeg))
    assert image.mode == "RGB"
    assert image.getpixel((250, 150)) >= (245, 245, 245)
    assert image.getpixel((20, 20))[2] > 200


def test_a_large_photo_is_capped_in_pixels_and_bytes(noisy_photo: bytes) -> None:
    stored = normalise(noisy_photo, max_bytes=LIMIT)
    assert max(stored.width, stored.height) == LONGEST_SIDE
    assert len(stored.jpeg) <= MAX_STORED_BYTES
    thumbnail = Image.open(io.BytesIO(stored.thumbnail))
    assert max(thumbnail.size) == THUMBNAIL_SIDE
    assert stored.picture.size == (2800, 2100)  # the QR code is read at full size

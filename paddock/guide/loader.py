"""The guide's pages: Markdown files of this package (``pages/<language>/<page>.md``) made
into HTML once per process, then sanitised.

No database here. A page's links may name the event and championship they lead to as
``{event}`` and ``{championship}`` (``/e/{event}/desk/``): the rendered HTML keeps them
(percent-encoded, :data:`PLACEHOLDERS`) and the view fills them for the reader
(``paddock.guide.views``). An image is written by its file name alone
(``![The desk](desk.webp)``) and served from ``static/guide/<language>/``.

The files are the project's own, but the HTML is sanitised all the same (nh3, an allow-list
of tags, attributes and URL schemes): a page edited carelessly, or a pasted snippet, can
never put a script, a style or an event handler on a page of the site.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import nh3
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from markdown_it import MarkdownIt
from markdown_it.token import Token
from PIL import Image

FOLDER = Path(__file__).resolve().parent / "pages"

#: The guide's pages, in the order of its menu: one Markdown file each per language.
PAGES = ("organiser", "race-control", "referee", "player", "racing-game")
LANGUAGES = ("fr", "en")
DEFAULT_LANGUAGE = "fr"

#: What a link may leave to the reader, as it stands in the rendered HTML.
PLACEHOLDERS = {"event": "%7Bevent%7D", "championship": "%7Bchampionship%7D"}

TAGS = {
    *("h1", "h2", "h3", "h4", "p", "br", "hr", "blockquote"),
    *("ul", "ol", "li", "strong", "em", "code", "pre", "kbd", "a", "img"),
    *("table", "thead", "tbody", "tr", "th", "td"),
}
ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height", "loading"},
    "h2": {"id"},
    "h3": {"id"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
}


@dataclass(frozen=True)
class Page:
    slug: str
    language: str
    title: str
    html: str


def language_of(code: str | None) -> str:
    """The guide's language for Django's active language: English when it is English,
    French (the site's default) otherwise."""
    return "en" if (code or "").lower().startswith("en") else DEFAULT_LANGUAGE


def source_path(slug: str, language: str) -> Path:
    if slug not in PAGES and slug != "index":
        raise LookupError(slug)
    if language not in LANGUAGES:
        raise LookupError(language)
    return FOLDER / language / f"{slug}.md"


@functools.cache
def page(slug: str, language: str) -> Page:
    """The page ``slug`` in ``language`` ("index" for the guide's first page), rendered once
    per process. Raises ``LookupError`` for a page the guide does not have."""
    text = source_path(slug, language).read_text(encoding="utf-8")
    title, html = render(text, language)
    return Page(slug=slug, language=language, title=title, html=html)


def render(text: str, language: str) -> tuple[str, str]:
    """Markdown → (the first heading's text, sanitised HTML)."""
    parser = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table")
    tokens = parser.parse(text)
    title = ""
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[index + 1]
            words = inline.content.strip()
            if token.tag == "h1" and not title:
                title = words
            elif token.tag in ("h2", "h3"):
                token.attrSet("id", anchor(words))
        if token.type == "inline" and token.children:
            for child in token.children:
                if child.type == "image":
                    _image(child, language)
    html = parser.renderer.render(tokens, parser.options, {})
    return title, sanitise(html)


def sanitise(html: str) -> str:
    """Only the tags, attributes and URL schemes a guide page needs; scripts and styles
    removed with their content."""
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel=None,
        strip_comments=True,
    )


def anchor(words: str) -> str:
    """A heading's id: its words, lower case, joined by hyphens (accents kept out)."""
    folded = words.lower().translate(str.maketrans("àâäéèêëîïôöùûüçœ’'", "aaaeeeeiioouuuco  "))
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-") or "section"


def image_name(src: str) -> str | None:
    """The file name of a guide image (``desk.webp``), or None for any other address."""
    return src if re.fullmatch(r"[a-z0-9][a-z0-9._-]*\.(webp|png|jpg)", src) else None


def _image(token: Token, language: str) -> None:
    """A guide image's address in the static files, its size (the page does not jump as it
    loads) and lazy loading. One missing from the static files shows its words only."""
    name = image_name(str(token.attrGet("src") or ""))
    if name is None:
        return
    path = f"guide/{language}/{name}"
    found = finders.find(path)
    if not found:
        token.type, token.tag, token.attrs, token.children = "text", "", {}, None
        token.content = token.content or name
        return
    with Image.open(found) as picture:
        width, height = picture.size
    token.attrSet("src", static(path))
    token.attrSet("width", str(width))
    token.attrSet("height", str(height))
    token.attrSet("loading", "lazy")

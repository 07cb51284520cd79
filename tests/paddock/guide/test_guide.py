"""The guide at /guide/ (issue 41, item 6): its pages in French and English, every link a
page of the app, every image in the static files, and nothing but what the allow-list keeps
from a page's Markdown (``paddock/guide/loader.py``, ``views.py``)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import Resolver404, resolve, reverse
from django.utils.html import escape
from markdown_it import MarkdownIt

from paddock.guide import loader
from paddock.guide.views import filled

PAGES = ["index", *loader.PAGES]
HREF = re.compile(r'href="([^"]*)"')
SRC = re.compile(r'<img [^>]*src="([^"]*)"')
MARKDOWN_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def reader(language: str, user=None) -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    if user is not None:
        client.force_login(user)
    return client


def url_of(slug: str) -> str:
    return reverse("guide") if slug == "index" else reverse("guide-page", args=[slug])


def links(html: str) -> list[str]:
    return [href.replace("&amp;", "&") for href in HREF.findall(html)]


@pytest.mark.django_db
@pytest.mark.parametrize("language", loader.LANGUAGES)
def test_every_page_answers_in_french_and_english(language: str) -> None:
    client = reader(language)
    for slug in PAGES:
        response = client.get(url_of(slug))
        assert response.status_code == 200, slug
        html = response.content.decode()
        assert f'<html lang="{language}">' in html
        assert f"<h1>{loader.page(slug, language).title}</h1>" in html
        for other in loader.PAGES:  # the guide's menu, in the page's language
            assert escape(loader.page(other, language).title) in html


def test_the_two_languages_are_different_pages_with_the_same_steps() -> None:
    for slug in PAGES:
        french, english = loader.page(slug, "fr"), loader.page(slug, "en")
        assert french.title != english.title
        assert french.html.count("<h2") == english.html.count("<h2"), slug
        assert len(links(french.html)) == len(links(english.html)), slug


def test_french_is_the_default_and_english_is_english() -> None:
    assert loader.language_of("fr") == "fr"
    assert loader.language_of("en") == "en"
    assert loader.language_of("en-gb") == "en"
    assert loader.language_of(None) == "fr"
    assert loader.language_of("de") == "fr"


@pytest.mark.django_db
def test_an_unknown_page_is_a_404_in_the_readers_language() -> None:
    for path in ("/guide/nope/", "/guide/index/", "/guide/..%2Fsettings/"):
        assert reader("en").get(path).status_code == 404, path
    with pytest.raises(LookupError):
        loader.page("nope", "fr")
    with pytest.raises(LookupError):
        loader.page("organiser", "de")


def test_a_page_is_rendered_once_per_process() -> None:
    assert loader.page("referee", "fr") is loader.page("referee", "fr")
    assert loader.page("referee", "fr") is not loader.page("referee", "en")


def test_every_link_of_the_guide_is_a_page_of_the_app() -> None:
    """Filled with an event's and a championship's addresses, every link resolves to one of
    Paddock's own views (no link leaves the site: the hall may have no internet)."""
    event = SimpleNamespace(slug="gp", championship=SimpleNamespace(slug="cf"))
    checked = 0
    for language in loader.LANGUAGES:
        for slug in PAGES:
            for href in links(filled(loader.page(slug, language).html, event, signed_in=True)):
                where = f"{language}/{slug}: {href}"
                assert href.startswith("/") and not href.startswith("//"), where
                assert "%7B" not in href, where
                path = href.split("#")[0].split("?")[0]
                try:
                    resolve(path)
                except Resolver404:
                    pytest.fail(f"{where} is no page of Paddock")
                checked += 1
    assert checked > 100


@pytest.mark.django_db
def test_every_link_of_the_guide_opens_for_an_organiser_with_an_event(make_event, organiser):
    """The same links, opened for real on an event: none answers a server error."""
    event = make_event(n_drivers=2)
    client = reader("fr", organiser)
    pages = {}
    for slug in PAGES:
        response = client.get(url_of(slug))
        assert response.status_code == 200
        html = response.content.decode()
        body = html[html.index('<article class="guide">') :]
        for href in links(body[: body.index("</article>")]):
            pages.setdefault(href.split("#")[0], slug)
    assert f"/e/{event.slug}/desk/" in pages and f"/c/{event.championship.slug}/" in pages
    for href, slug in sorted(pages.items()):
        assert client.get(href).status_code < 500, f"{slug}: {href}"


def test_every_image_of_the_guide_is_in_the_static_files() -> None:
    for language in loader.LANGUAGES:
        folder = Path(settings.BASE_DIR) / "static" / "guide" / language
        for slug in PAGES:
            text = loader.source_path(slug, language).read_text(encoding="utf-8")
            names = MARKDOWN_IMAGE.findall(text)
            for name in names:
                assert loader.image_name(name) == name, f"{language}/{slug}: {name}"
                assert (folder / name).is_file(), f"{language}/{slug}: {name} missing"
            shown = SRC.findall(loader.page(slug, language).html)
            assert shown == [f"{settings.STATIC_URL}guide/{language}/{name}" for name in names]
            for src in shown:
                assert finders.find(src.removeprefix(settings.STATIC_URL))
            assert loader.page(slug, language).html.count('loading="lazy"') == len(names)


def test_an_image_missing_from_the_static_files_shows_its_words() -> None:
    _title, html = loader.render("# T\n\n![The desk at dawn](nowhere.webp)\n", "en")
    assert "<img" not in html
    assert "The desk at dawn" in html


def test_raw_html_and_scripts_in_a_page_are_removed() -> None:
    hostile = """# Hostile

<script>alert("script")</script>
<style>body { display: none }</style>
<iframe src="https://example.org/"></iframe>
<p style="color: red" onclick="alert('click')">kept words</p>
<img src="x" onerror="alert('error')">
<a href="javascript:alert('href')">a link</a>
[markdown link](javascript:alert('markdown'))
<form action="/accounts/logout/" method="post"><button>out</button></form>
<!-- a comment -->
"""
    unsanitised = MarkdownIt("commonmark", {"html": True}).render(hostile)
    assert "<script" in unsanitised and "onerror" in unsanitised  # what nh3 takes out
    title, html = loader.render(hostile, "en")
    assert title == "Hostile"
    lowered = html.lower()
    for word in (
        "<script",
        'alert("script")',
        "alert('click')",
        "alert('error')",
        "alert('href')",
        "<style",
        "display: none",
        "<iframe",
        "onclick",
        "style=",
        "onerror",
        'href="javascript',
        "<form",
        "<button",
        "<!--",
    ):
        assert word not in lowered, word
    assert "kept words" in html and "a link" in html
    assert not re.search(r"<a [^>]*javascript", lowered)  # the Markdown link stays words


def test_the_guide_uses_the_sites_own_classes() -> None:
    """The pages fit 390 px through the site's CSS: the template's classes are Paddock's or
    Pico's, and the Markdown's HTML carries no class or style of its own."""
    css = (Path(settings.BASE_DIR) / "static" / "css" / "paddock.css").read_text()
    template = (Path(settings.BASE_DIR) / "templates" / "guide" / "page.html").read_text()
    classes = {c for group in re.findall(r'class="([^"]+)"', template) for c in group.split()}
    pico = {"secondary", "outline", "guide"}
    assert {c for c in classes - pico if f".{c}" not in css} == set()
    for language in loader.LANGUAGES:
        for slug in PAGES:
            assert "class=" not in loader.page(slug, language).html
            assert "style=" not in loader.page(slug, language).html


@pytest.mark.django_db
def test_an_unpublished_event_is_named_to_its_organisers_only(make_event, organiser) -> None:
    """Organiser, outsider, anonymous: the guide fills its links with an event nobody else
    may see for its organisers only; the others get the list of events instead."""
    make_event(n_drivers=1)
    outsider = get_user_model().objects.create_user("outsider", password="outsider-pass-1")
    asked = "/guide/race-control/?event=gp"
    mine = reader("en", organiser).get(asked).content.decode()
    assert 'href="/e/gp/desk/"' in mine and "Grand Prix d&#x27;Été" in mine
    for client, elsewhere in ((reader("en", outsider), "/clubs/"), (reader("en"), "/")):
        html = client.get(asked).content.decode()
        assert "/e/gp/" not in html and "Grand Prix d" not in html
        assert f'href="{elsewhere}"' in html
        assert "No event yet" in html


@pytest.mark.django_db
def test_a_published_event_leads_everyones_links(make_event) -> None:
    make_event(n_drivers=1, published_results=True)
    html = reader("fr").get("/guide/player/").content.decode()
    assert 'href="/e/gp/where/"' in html and 'href="/c/cf/standings/"' in html


@pytest.mark.django_db
def test_the_guide_is_linked_from_every_pages_footer_and_the_home_page() -> None:
    home = reader("en").get("/").content.decode()
    assert home.count(f'href="{reverse("guide")}"') == 2  # the new club's line and the footer
    login = reader("en").get(reverse("login")).content.decode()
    assert f'href="{reverse("guide")}"' in login


#: The chapters each role of a club reads (DOMAIN.md "Clubs and who may do what"): the desk
#: keeps the day's counter, its chapters' organiser-only steps apart.
CHAPTERS = {
    "owner": PAGES,
    "organiser": PAGES,
    "desk": ["index", "race-control", "racing-game", "referee", "player"],
}
ITEM = re.compile(r"<li>(.*?)</li>", re.S)
ORGANISERS_ONLY = ("<em>Organisers only.</em>", "<em>Organisateurs seulement.</em>")


def role_links(html: str, role: str) -> list[str]:
    """The links of a chapter's body that ``role`` follows: all of them for the club's
    owners and organisers; for the desk, those outside the steps marked organisers only."""
    body = html[html.index('<article class="guide">') :]
    body = body[: body.index("</article>")]
    if role != "desk":
        return links(body)
    theirs = [item for item in ITEM.findall(body) if item.strip().startswith(ORGANISERS_ONLY)]
    for item in theirs:
        body = body.replace(item, "")
    return links(body)


@pytest.mark.django_db
def test_each_role_opens_every_link_of_its_chapters(make_event, championship, settings) -> None:
    """Walked with each role's session, every link of the chapters meant for it answers 200
    and lands where it points (the anchor is on the page): the guide never sends the desk
    to a page it may not open, nor to a form it does not have."""
    from tournament.models import Club, Membership

    settings.CLUBS_OPEN = True  # the organiser's chapter makes a club where the server lets
    event = make_event(n_drivers=2)
    club = Club.objects.create(slug="club-guide", name="Club du guide")
    championship.club = club
    championship.save(update_fields=["club"])
    users = get_user_model().objects
    marked = 0
    failures: list[str] = []
    for role, chapters in CHAPTERS.items():
        user = users.create_user(f"guide-{role}", password="pc-password-1")
        Membership.objects.create(club=club, user=user, role=role)
        client = reader("fr", user)
        walked: dict[str, str] = {}
        for slug in chapters:
            response = client.get(url_of(slug), {"event": event.slug})
            assert response.status_code == 200, (role, slug)
            html = response.content.decode()
            for href in role_links(html, role):
                walked.setdefault(href, slug)
            marked += sum(html.count(mark) for mark in ORGANISERS_ONLY)
        if f"/e/{event.slug}/desk/#sheets" not in walked:
            failures.append(f"{role}: no link to the desk's sheets")
        pages: dict[str, str] = {}
        for href, slug in sorted(walked.items()):
            path, _, anchor = href.partition("#")
            if path not in pages:
                # A page for whoever has no account yet (a stranger's sign-up, which the
                # organiser's chapter names for its players) is opened as that stranger.
                stranger = path in {reverse("account-signup")}
                response = (reader("fr") if stranger else client).get(path)
                pages[path] = response.content.decode() if response.status_code == 200 else ""
                if response.status_code != 200:
                    failures.append(f"{role} · {slug}: {href} {response.status_code}")
            if anchor and pages[path] and f'id="{anchor}"' not in pages[path]:
                failures.append(f"{role} · {slug}: {href} has no #{anchor}")
    assert failures == [], "\n".join(failures)
    assert marked > 0  # the chapters say which steps are the organisers' own


@pytest.mark.django_db
def test_the_desk_prints_the_sheets_from_its_own_page(
    make_event, championship, django_capture_on_commit_callbacks
) -> None:
    """The desk prints the race sheets (DOMAIN.md: its counter holds the sheets) from the
    desk's page, the race tables' page being the organisers' own."""
    from races.grid.services import allocation_run
    from tournament.access import Actor
    from tournament.models import Club, Membership

    event = make_event(n_drivers=4)
    club = Club.objects.create(slug="club-desk", name="Club de l’accueil")
    championship.club = club
    championship.save(update_fields=["club"])
    desk = get_user_model().objects.create_user("guide-desk", password="pc-password-1")
    Membership.objects.create(club=club, user=desk, role="desk")
    allocation_run(actor=Actor(user=championship.organisers.get()), event=event, table_size=4)
    client = reader("en", desk)
    page = client.get(reverse("event-desk", args=[event.slug])).content.decode()
    assert 'id="desk-race-sheets"' in page and 'href="#sheets"' in page
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post(
            reverse("sheet-batch-request", args=[event.slug]), {"kind": "race", "inline": "1"}
        )
    assert asked.status_code == 302
    assert asked["Location"] == reverse("sheet-batch", args=[event.slug, "race"])
    assert client.get(asked["Location"]).status_code == 200
    pdf = client.get(reverse("sheet-batch-download", args=[event.slug, "race"]))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    assert client.get(reverse("allocation", args=[event.slug])).status_code == 403

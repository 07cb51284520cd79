"""Words wrap between words on a 390 px phone, in real Chromium: no word of a page breaks
across two lines ("O/K", "Reche/rcher", "Tendre/s" did, under ``overflow-wrap: anywhere``
on ``main``). Only a word wider than the screen itself (a hostile name) may break, and
nothing runs off."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page

from tests.browser.test_phone_widths import PHONE, browser_as, published_world
from tests.security.test_permission_matrix import PAGES

pytestmark = pytest.mark.django_db(transaction=True)

#: The words of ``main`` drawn on more than one line (words of 25 letters or more aside:
#: only those may need a break).
BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.getClientRects().length) continue;  // hidden
    const text = node.textContent;
    const re = /\\S+/g;
    let match;
    while ((match = re.exec(text))) {
      if (match[0].length >= 25) continue;
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const rects = Array.from(range.getClientRects()).filter(r => r.width > 0);
      const tops = new Set(rects.map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""


def broken_words(page: Page, url: str) -> list[str]:
    page.goto(url, wait_until="load")
    return page.evaluate(BROKEN_WORDS)


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("qtable", "link"),
        ("event-desk", "organiser"),
        ("rtable", "link"),
        ("home", "anonymous"),
        ("signup-entrants", "anonymous"),
    ],
)
def test_words_wrap_between_words_on_a_phone(
    name: str, role: str, live_server: Any, browser: Browser
) -> None:
    world = published_world()
    context = browser_as(browser, world, role, live_server.url, viewport=PHONE)
    page = context.new_page()
    arguments, _methods = PAGES[name]
    try:
        words = broken_words(page, live_server.url + reverse(name, kwargs=arguments(world, role)))
        wider = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    finally:
        context.close()
    assert words == [], words
    assert wider <= 0

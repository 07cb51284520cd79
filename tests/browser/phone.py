"""What a thumb on a 390×844 phone needs, checked in the page: touch targets of 44 px at
least (WCAG 2.5.5), and no page wider than the screen."""

from __future__ import annotations

from playwright.sync_api import Page

VIEWPORT = {"width": 390, "height": 844}

# Every visible control a finger aims at; a radio or checkbox counts by its label.
_SMALL_TARGETS = """(scope) => [...document.querySelectorAll(scope)]
  .flatMap(root => [...root.querySelectorAll(
    'button, select, input:not([type=hidden]), label.segment, label.toggle')])
  .filter(e => e.offsetParent !== null && !e.closest('[aria-hidden=true]'))
  .filter(e => !e.matches('input[type=radio], input[type=checkbox]'))
  .map(e => [e.name || e.className || e.textContent.trim(),
             Math.round(e.getBoundingClientRect().height)])
  .filter(([, height]) => height < 44)"""


def small_targets(page: Page, scope: str) -> list[list[object]]:
    """The controls under ``scope`` (a CSS selector) less than 44 px high."""
    return page.evaluate(_SMALL_TARGETS, scope)


def page_width(page: Page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")

"""The night screens stay dim but readable (issue 31): every text on Bedside and Wind Down, and on
their sheets and player, is at least 4.5:1 (3:1 when large) in every theme, measured from computed
styles (e2e/night_contrast.py) and by axe-core's color-contrast rule; Bedside's sheets have no
bright fills and their buttons keep a visible outline; every tab label, "Wind Down" too, is on
one line at 390 px; and a book with no art shows a cover drawn from its title wherever it shows."""

import re
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import PHONE, close, open_page, screenshot, settled, sign_in, wait_until
from night_contrast import axe_contrast, measure, too_low
from test_bedside import open_bedside
from test_listen import make


def readable_in_every_theme(page, scope, label):
    """Every text under `scope` in every theme: the measured ratios that are too low, by theme, and
    axe-core's findings (empty when all is well). The themes are the app's own list (Web/theme.js),
    each set on <html> as the app sets it."""
    problems = {}
    themes = page.evaluate("import('/theme.js').then(({ THEMES }) => THEMES.map((theme) => theme.id))")
    assert len(themes) == 6, themes
    for theme in themes:
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        found = measure(page, scope)
        assert found, f"{label}: no text found under {scope}"
        low = too_low(found) + [f"axe: {line}" for line in axe_contrast(page, scope)]
        if low:
            problems[f"{label} / {theme}"] = low
    page.evaluate("document.documentElement.dataset.theme = 'RetroFuturistic'")
    return problems


# The controls of a sheet: the colour they are filled with, and their edge against the sheet (the
# border where there is one, else an inset ring, else the fill).
CONTROLS = r"""(scope) => {
    const sheet = document.querySelector(scope);
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const pen = canvas.getContext('2d', {willReadFrequently: true});
    const paint = (css, under) => {  // a colour over an opaque one, as the screen shows it
        pen.fillStyle = under; pen.fillRect(0, 0, 1, 1);
        pen.fillStyle = css; pen.fillRect(0, 0, 1, 1);
        return [...pen.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    };
    const channel = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    const luminance = (c) => 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2]);
    const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const behind = getComputedStyle(sheet).backgroundColor;
    const base = paint(behind, '#000');
    const controls = [...sheet.querySelectorAll('.button, [role=tab][aria-selected=true], .bs-day input:checked + span')]
        .filter((el) => el.checkVisibility() && !el.disabled);
    return controls.map((el) => {
        const s = getComputedStyle(el);
        const fill = paint(s.backgroundColor, behind);
        const ring = s.boxShadow.match(/(rgba?\([^)]*\)|color\([^)]*\))[^,]*inset/);
        const edge = parseFloat(s.borderTopWidth) >= 1 ? paint(s.borderTopColor, behind) : ring ? paint(ring[1], behind) : fill;
        return {name: el.textContent.trim(), fill: Math.round(luminance(fill) * 1000) / 1000, edge: Math.round(ratio(edge, base) * 100) / 100};
    });
}"""


def dim_clear_buttons(page, scope, label):
    """Each control on a Bedside sheet: a dark fill (relative luminance at most 0.06; the theme's
    pink was 0.37) and an edge of 3:1 against the sheet (WCAG 1.4.11), so it is still a button."""
    problems = []
    controls = page.evaluate(CONTROLS, scope)
    assert controls, f"{label}: no controls"
    for control in controls:
        if control["fill"] > 0.06:
            problems.append(f"{label}: “{control['name']}” is filled bright (luminance {control['fill']})")
        if control["edge"] < 3:
            problems.append(f"{label}: “{control['name']}”'s edge is {control['edge']}:1 on the sheet")
    return problems


def open_sheet(page, button, name):
    page.get_by_role("button", name=button, exact=True).click()
    sheet = page.get_by_role("dialog", name=name)
    expect(sheet).to_be_visible()
    settled(page)
    return sheet


def test_bedside_and_its_sheets_read_in_every_theme(server, browser):
    page = open_page(browser)
    open_bedside(server, page)
    problems = readable_in_every_theme(page, "body", "Bedside")
    screenshot(page, "night-bedside")
    buttons = []

    sheet = open_sheet(page, "Bedside settings", "Bedside settings")
    problems |= readable_in_every_theme(page, "dialog[open]", "Gear")
    buttons += dim_clear_buttons(page, "dialog[open]", "Gear")
    screenshot(page, "night-bedside-gear")
    sheet.get_by_role("button", name="Done").click()

    sheet = open_sheet(page, "My Content", "My Content")
    expect(sheet.get_by_role("list", name="Your meditations").get_by_role("listitem")).to_have_count(1)
    problems |= readable_in_every_theme(page, "dialog[open]", "My Content, meditations")
    buttons += dim_clear_buttons(page, "dialog[open]", "My Content, meditations")
    screenshot(page, "night-bedside-content")
    sheet.get_by_role("tab", name="Poems").click()
    expect(sheet.get_by_role("list", name="Your poems").get_by_role("listitem")).to_have_count(1)
    sheet.locator(".bs-presets summary").click()
    problems |= readable_in_every_theme(page, "dialog[open]", "My Content, poems")
    buttons += dim_clear_buttons(page, "dialog[open]", "My Content, poems")
    # Poems keep their purple: the chosen tab is edged with it.
    ring = page.evaluate("getComputedStyle(document.querySelector('.bs-tabs [aria-selected=true]')).boxShadow")
    sheet.locator(".bs-presets summary").click()
    screenshot(page, "night-bedside-content-poems")
    sheet.get_by_role("button", name="New poem").click()
    editor = page.get_by_role("dialog", name="New poem")
    expect(editor).to_be_visible()
    editor.get_by_label("Words").fill("Low tide (1s)\nThe boats lie down (2s)")
    expect(editor.locator(".bs-check")).to_contain_text("phrase")
    settled(page)
    problems |= readable_in_every_theme(page, "dialog.bs-editor[open]", "Poem editor")
    buttons += dim_clear_buttons(page, "dialog.bs-editor[open]", "Poem editor")
    screenshot(page, "night-bedside-editor")
    editor.get_by_role("button", name="Cancel").click()
    sheet.get_by_role("button", name="Close").click()

    sheet = open_sheet(page, "Alarm", "Alarm")
    sheet.get_by_label("Alarm on").check()
    sheet.locator(".bs-day").nth(1).click()
    problems |= readable_in_every_theme(page, "dialog[open]", "Alarm")
    buttons += dim_clear_buttons(page, "dialog[open]", "Alarm")
    screenshot(page, "night-bedside-alarm")
    sheet.get_by_role("button", name="Cancel").click()

    assert problems == {}, problems
    assert buttons == [], buttons
    assert "rgb(192, 138, 230)" in ring, ring
    close(page)


def test_wind_down_its_detail_player_and_timer_read_in_every_theme(server, browser):
    page = open_page(browser)
    sign_in(server, page, None)
    # A short story for the player: the owner gives a Coming Soon item a file.
    story = Path(tempfile.mkdtemp(prefix="reverie-night-")) / "night-walk.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=196:duration=20", "-ac", "1", "-b:a", "32k", str(story)], check=True)
    answer = page.request.put(server.url + "/api/winddown/story_night_train/audio", data=story.read_bytes(),
                              headers={"Content-Type": "audio/mpeg", "X-File-Name": story.name}, timeout=300_000)
    assert answer.status == 202, answer.text()  # levelled in the background
    wait_until(page, "fetch('/api/winddown/story_night_train').then(r => r.json()).then(b => b.audio.state === 'ready')",
               message="the story's file was never levelled")
    # And takes another's audio away, for a Coming Soon card and detail.
    assert page.request.put(server.url + "/api/winddown/affirmation_tomorrow/removed").status == 200
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Wind Down", exact=True).click()
    expect(page.locator(".wd-featured h3")).to_be_visible()
    page.wait_for_load_state("networkidle")
    problems = readable_in_every_theme(page, "body", "Wind Down")
    screenshot(page, "night-wind-down")
    # The rows of cards under the translucent tab bar.
    page.mouse.wheel(0, 420)
    # Scrolled, and come to rest: the page's scroll position has moved and holds over two frames.
    wait_until(page, """new Promise((done) => { const y = document.scrollingElement.scrollTop;
                     requestAnimationFrame(() => requestAnimationFrame(() => done(y > 0 && document.scrollingElement.scrollTop === y))); })""",
               message="the Wind Down page never scrolled")
    problems |= readable_in_every_theme(page, "body", "Wind Down, scrolled")
    screenshot(page, "night-wind-down-scrolled")

    page.locator(".wd-card.coming-soon").first.click()
    expect(page.locator("dialog.wd-detail")).to_be_visible()
    settled(page)
    problems |= readable_in_every_theme(page, "dialog.wd-detail", "Coming Soon detail")
    screenshot(page, "night-wind-down-detail")
    page.locator("dialog.wd-detail").get_by_role("button", name="Close").click()
    # (Back to the catalog's own, for the rest of the file's tests on this server.)
    assert page.request.delete(server.url + "/api/winddown/affirmation_tomorrow/audio").status == 200

    page.locator('[data-item="story_night_train"].wd-card').first.click()
    player = page.get_by_role("dialog", name="The Slow Night Train, player")
    expect(player).to_be_visible()
    settled(page)
    problems |= readable_in_every_theme(page, ".player", "Player")
    screenshot(page, "night-wind-down-player")
    player.locator(".player-timer").click()
    expect(page.get_by_role("dialog", name="Sleep timer")).to_be_visible()
    settled(page)
    problems |= readable_in_every_theme(page, "dialog.timer-sheet", "Sleep timer")
    screenshot(page, "night-wind-down-timer")
    page.get_by_role("dialog", name="Sleep timer").get_by_role("button", name="Cancel").click()

    assert problems == {}, problems
    close(page)


# A label's lines are its text's line boxes (a range's rectangles, one per line; the span itself is
# a flex item, one box however many lines it has).
LABELS = """() => [...document.querySelectorAll('#tabs .tab span')].map((label) => {
    const range = document.createRange();
    range.selectNodeContents(label);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return {name: label.textContent, lines: lines.size, height: label.getBoundingClientRect().height,
            line: parseFloat(getComputedStyle(label).lineHeight), size: parseFloat(getComputedStyle(label).fontSize)};
})"""


@pytest.mark.parametrize("large_text", [False, True], ids=["390x844", "390x844-200pct"])
def test_every_tab_label_is_on_one_line_at_390(server, browser, large_text):
    page = open_page(browser, viewport=PHONE, large_text=large_text)
    sign_in(server, page, None)
    for area in ("Wind Down", "Bedside"):
        page.get_by_role("navigation", name="Areas").get_by_role("link", name=area, exact=True).click()
        expect(page.locator("main h1").first).to_be_attached()
        labels = page.evaluate(LABELS)
        assert [label["name"] for label in labels] == ["Bedside", "Meditate", "Wind Down", "Listen", "Write", "Settings"]
        for label in labels:
            # One line box, as tall as one line, and the text no smaller than it was (0.68rem).
            assert label["lines"] == 1 and abs(label["height"] - label["line"]) < 1, (area, label)
            assert label["size"] >= (21.7 if large_text else 10.8), label
        suffix = "-200pct" if large_text else ""
        screenshot(page, f"night-tabs-{area.lower().replace(' ', '-')}{suffix}")
    close(page)


COVER = """(selector) => {
    const cover = document.querySelector(selector);
    if (!cover) return null;
    const box = cover.getBoundingClientRect();
    const style = getComputedStyle(cover);
    const text = (part) => { const el = cover.querySelector(part); return el && el.checkVisibility() ? el.textContent : null; };
    return {tag: cover.tagName, tone: cover.dataset.tone, width: box.width, height: box.height, image: style.backgroundImage,
            initial: text('.drawn-cover-initial'), title: text('.drawn-cover-title')};
}"""


def test_a_book_without_art_shows_a_cover_drawn_from_its_title(server, browser):
    page = open_page(browser)
    sign_in(server, page, None)
    parts = Path(tempfile.mkdtemp(prefix="reverie-night-")) / "Sea Tales.zip"
    with zipfile.ZipFile(parts, "w") as archive:
        for index, (title, frequency) in enumerate([("The Harbour", 262), ("The Storm", 294)], start=1):
            archive.write(make(f"{index:02d}.mp3", 3, title, frequency=frequency), f"Sea Tales/{index:02d} {title}.mp3")
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Listen", exact=True).click()
    page.locator("[data-upload]").set_input_files(str(parts))
    item = page.locator(".listen-item", has_text="Sea Tales")
    # The server unpacks the zip and levels each part, which can take minutes on a busy machine.
    expect(item).to_be_visible(timeout=180_000)

    # In the library: a drawn square with the initial, in a colour from the title (not an empty box).
    listed = page.evaluate(COVER, ".listen-item .drawn-cover")
    assert listed and listed["tag"] == "SPAN", listed
    assert listed["initial"] == "S" and listed["title"] is None, listed  # too small for the words
    assert re.match(r"linear-gradient\(.*oklch", listed["image"]), listed
    assert abs(listed["width"] - 56) < 1 and abs(listed["height"] - 56) < 1, listed
    assert too_low(measure(page, ".listen-item")) == []
    screenshot(page, "drawn-cover-library")

    # On the book's page: large enough for the title's words.
    item.get_by_role("link").click()
    expect(page.get_by_role("heading", name="Sea Tales", level=1)).to_be_visible()
    on_page = page.evaluate(COVER, ".book-head .drawn-cover")
    assert on_page["initial"] == "S" and on_page["title"] == "Sea Tales", on_page
    assert on_page["tone"] == listed["tone"], (on_page, listed)  # the same title, the same cover
    assert too_low(measure(page, ".book-head")) == []
    screenshot(page, "drawn-cover-book")

    # Playing: the dock's cover and Now Playing's are the book's, drawn the same way.
    page.locator(".chapter").first.click()
    expect(page.locator(".mini[data-channel=speech] .mini-title")).to_have_text("The Harbour")
    docked = page.evaluate(COVER, ".mini[data-channel=speech] .drawn-cover")
    assert docked and docked["initial"] == "S" and docked["tone"] == listed["tone"], docked
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.pauseAll())")
    page.locator(".mini-open").first.click()
    expect(page.get_by_role("heading", name="Now playing", level=1)).to_be_visible()
    playing = page.evaluate(COVER, ".deck-card .drawn-cover")
    assert playing and playing["initial"] == "S" and playing["tone"] == listed["tone"], playing
    assert too_low(measure(page, ".deck-card")) == []
    screenshot(page, "drawn-cover-now-playing")

    # The tone is the title's: another title may draw another colour, the same one always the same.
    tones = page.evaluate("""import('/cover.js').then(({ coverTone, coverInitial }) => ({
        again: coverTone('Sea Tales'), initials: ['The Night Book', 'an Owl', '42 Moons', '  ¿Qué?'].map(coverInitial)}))""")
    assert str(tones["again"]) == listed["tone"] and tones["initials"] == ["N", "O", "4", "Q"], tones
    close(page)

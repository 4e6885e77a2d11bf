"""Settings › Try a voice: a line typed, spoken by the server's real engine, played with captions."""

import pytest
from playwright.sync_api import expect

from conftest import screenshot, sign_in, wait_until

pytestmark = pytest.mark.real_speech  # the line is spoken by Piper



def test_try_a_voice(server, page):
    sign_in(server, page, "Settings")
    panel = page.locator(".voice-panel")
    expect(panel.get_by_role("heading", name="Try a voice")).to_be_visible()

    # The natural voice comes first; eSpeak NG's voices are offered too.
    voice = panel.get_by_label("Voice")
    expect(voice).to_be_enabled()
    assert voice.input_value() == "en_US-joe-medium"
    assert panel.locator('option[value="en-us"]').count() == 1

    # Nothing to say is caught before anything is sent.
    panel.get_by_label("Line to speak").fill("   ")
    panel.get_by_role("button", name="Speak").click()
    expect(panel.get_by_role("alert")).to_contain_text("Write something")

    # A two-phrase line: progress while speaking, then audio the browser can play and one caption per phrase.
    panel.get_by_label("Line to speak").fill("The lake is still tonight. (1s) Let your shoulders soften.")
    panel.get_by_label("Speed").fill("0.9")
    expect(panel.locator("[data-rate-value]")).to_have_text("0.90×")
    panel.get_by_role("button", name="Speak").click()
    captions = panel.get_by_role("list", name="Captions").locator("li")
    expect(captions).to_have_count(2, timeout=90_000)
    expect(captions.nth(0)).to_contain_text("The lake is still tonight.")
    expect(captions.nth(1)).to_contain_text("Let your shoulders soften.")
    expect(panel.get_by_role("alert")).to_be_hidden()

    # The opening played first; then the whole render, which loads and decodes in the browser:
    # its length matches speech plus the pause.
    wait_until(page, "document.querySelector('.voice-panel audio').currentSrc.endsWith('/audio')")
    wait_until(page, "document.querySelector('.voice-panel audio').readyState >= 1")
    duration = page.evaluate("document.querySelector('.voice-panel audio').duration")
    assert 2.5 < duration < 12, duration

    # Tapping a caption plays from there and marks it as the one being spoken.
    captions.nth(1).get_by_role("button").click()
    expect(captions.nth(1)).to_have_class("active")
    page.evaluate("document.querySelector('.voice-panel audio').pause()")
    panel.scroll_into_view_if_needed()
    screenshot(page, "settings-try-a-voice")

    # An unreadable marker is spoken around and reported with its place; eSpeak NG speaks it.
    voice.select_option("en-us")
    panel.get_by_label("Line to speak").fill("Hello. (2x) Good night.")
    panel.get_by_role("button", name="Speak").click()
    expect(panel.locator("[data-warnings]")).to_contain_text("Line 1, column 8")


def test_try_a_voice_plays_the_first_phrase_while_the_rest_is_spoken(server, page):
    sign_in(server, page, "Settings")
    panel = page.locator(".voice-panel")
    expect(panel.get_by_label("Voice")).to_be_enabled()
    # Warm the voice first (the server loads it in the background after starting).
    panel.get_by_label("Line to speak").fill("Ready.")
    panel.get_by_role("button", name="Speak").click()
    expect(panel.get_by_role("list", name="Captions").locator("li")).to_have_count(1, timeout=90_000)
    # The warm-up's own opening hands over to its whole render before Speak is free again; that
    # handover plays the warm-up's audio on from where the opening ended, which is not heard here.
    expect(panel.get_by_role("button", name="Speak")).to_be_enabled()

    # A paragraph of a dozen sentences: its opening plays while the rest is still being spoken.
    sentences = [f"This is sentence number {n}, spoken slowly by the lake at night." for n in range(1, 13)]
    panel.get_by_label("Line to speak").fill(" (0.4s) ".join(sentences))
    page.evaluate("""() => {
        const audio = document.querySelector('.voice-panel audio');
        const warmUp = audio.src;
        window.heard = [];
        audio.addEventListener('playing', () => audio.currentSrc !== warmUp && window.heard.push({
            src: audio.currentSrc, rendering: !document.querySelector('.voice-panel [data-progress]').hidden }));
    }""")
    panel.get_by_role("button", name="Speak").click()
    wait_until(page, "window.heard.length > 0")
    first = page.evaluate("window.heard[0]")
    assert first["src"].endswith("/first"), first
    assert first["rendering"], "the opening should play while the rest is still rendering"
    expect(panel.locator("[data-progress-text]")).to_contain_text("Playing the beginning")
    screenshot(page, "settings-try-a-voice-opening")

    # When the opening's phrase ends, the whole render goes on from that point, with every caption.
    wait_until(page, "window.heard.some((entry) => entry.src.endsWith('/audio'))", timeout=60)
    expect(panel.get_by_role("list", name="Captions").locator("li")).to_have_count(12)
    at = page.evaluate("document.querySelector('.voice-panel audio').currentTime")
    assert at > 2, at   # went on after the first sentence, not from the start
    expect(panel.get_by_role("list", name="Captions").locator("li.active")).to_have_count(1)
    page.evaluate("document.querySelector('.voice-panel audio').pause()")

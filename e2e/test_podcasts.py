"""Podcasts and radio in the browser, against iTunes-, feed- and radio-browser-shaped services the
test serves on 127.0.0.1 (scripts/podcast_fixture.py). As a new listener would: find a podcast by
name, subscribe, download an episode with its silences shortened (its progress shown), and play
it with its chapters while the transcript follows and a tapped line plays from there; the sleep
timer offers End of Episode. Radio: top stations, a favourite, a station that plays (and is
counted), one whose stream fails and tries its other address, an HLS-only one remuxed by the
server, and after closing the app the station comes back paused."""

import pytest
from playwright.sync_api import expect

from conftest import BINARY, close, expect_error, open_page, screenshot, sign_in, wait_for, wait_until
from podcast_fixture import BROKEN_STATION, HLS_STATION, STATION, PodcastFixture
from reverie_process import ReverieProcess


@pytest.fixture(scope="module")
def site():
    fixture = PodcastFixture()
    yield fixture
    fixture.stop()


@pytest.fixture(scope="module")
def server(site):
    instance = ReverieProcess(BINARY, prefix="reverie-e2e-", podcasts=site)
    yield instance
    instance.stop()


def test_find_subscribe_download_and_read_along(server, page):
    sign_in(server, page, "Listen")
    page.get_by_role("link", name="Podcasts").click()
    expect(page.get_by_role("heading", name="Podcasts", level=1)).to_be_visible()
    expect(page.locator(".podcast-empty")).to_contain_text("No podcasts yet")
    search = page.get_by_role("searchbox", name="Find a podcast")
    search.fill("Whales at Noon")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".podcast-status")).to_contain_text("No podcast called “Whales at Noon” was found.")
    search.fill("night owls")
    page.get_by_role("button", name="Search").click()
    found = page.locator(".podcast-found", has_text="Night Owls")
    expect(found).to_contain_text("Ann Host · 2 episodes")
    # The cover comes through the server (the page itself only loads from its own address).
    wait_until(page, "document.querySelector('.podcast-found img').naturalWidth > 0", message="the cover did not load")
    screenshot(page, "podcasts-search")

    found.get_by_role("button", name="Subscribe").click()
    expect(page.get_by_role("heading", name="Night Owls", level=1)).to_be_visible()
    episodes = page.locator(".episode")
    expect(episodes).to_have_count(2)
    expect(episodes.first).to_contain_text("The Tawny Owl")

    owl = episodes.filter(has_text="The Tawny Owl")
    owl.get_by_label("Shorten silences").check()
    owl.get_by_role("button", name="Download").click()
    expect(owl.locator("progress").or_(owl.locator(".episode-downloaded"))).to_be_visible()
    # The server downloads, levels and shortens the episode, which can take minutes on a busy machine.
    expect(owl.locator(".episode-downloaded")).to_contain_text("Downloaded, levelled, 4 s of silence shortened", timeout=180_000)
    screenshot(page, "podcast-page")

    owl.get_by_role("link", name="The Tawny Owl").click()
    expect(page.get_by_role("heading", name="The Tawny Owl", level=1)).to_be_visible()
    expect(page.locator(".episode-chapters .chapter-title")).to_have_text(["Welcome", "The tawny owl"])
    lines = page.locator(".transcript-line")
    expect(lines).to_have_count(4)
    page.get_by_role("button", name="Play", exact=True).click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.track.title === 'Welcome')",
               message="the episode did not play from its first chapter")
    expect(lines.first).to_have_attribute("aria-current", "true")

    # A line after the shortened silence: 13 s of the original is 9 s of the download.
    lines.filter(has_text="There it is").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.track.title === 'The tawny owl'"
                     " && Math.abs(deck.speech.position - 9) < 1.5)", message="the tapped line did not play from its place")
    expect(lines.filter(has_text="There it is")).to_have_attribute("aria-current", "true")
    # The lock screen reads along: the line being said, under the chapter's title.
    wait_until(page, "navigator.mediaSession.metadata && navigator.mediaSession.metadata.title === 'The tawny owl'"
                     " && navigator.mediaSession.metadata.artist === 'Ben: There it is, calling from the oak.'",
               message="the lock screen did not show the line being said")
    screenshot(page, "episode-transcript")

    # The sleep timer offers End of Episode for an episode.
    page.locator(".episode-page").get_by_role("link", name="Now playing").click()
    page.get_by_role("button", name="Sleep timer").click()
    page.get_by_role("button", name="End of Episode").click()
    expect(page.get_by_role("button", name="End of episode. Tap to cancel the sleep timer.")).to_be_visible()
    screenshot(page, "episode-now-playing")
    page.get_by_role("button", name="End of episode. Tap to cancel the sleep timer.").click()


def test_a_feed_read_with_repairs_says_so(server, site, page):
    """A feed as some hosts publish it (text before its declaration, a bare ampersand, &nbsp;):
    subscribed to by its address, read, and its page names the repairs."""
    sign_in(server, page, "Listen")
    page.get_by_role("link", name="Podcasts").click()
    page.get_by_text("Add by address, or bring your podcasts from another app").click()
    page.get_by_label("Feed address").fill(site.url + "/feeds/salt.xml")
    page.get_by_label("Feed address").press("Enter")
    expect(page.get_by_role("heading", name="Salt & Night", level=1)).to_be_visible()
    expect(page.locator(".episode")).to_have_count(2)
    expect(page.locator(".episode").filter(has_text="Fish & Moths")).to_have_count(1)
    # An episode the feed gives no title: the data says none, the screen says so.
    expect(page.locator(".episode").filter(has_text="Untitled episode")).to_have_count(1)
    notice = page.locator("[data-feed-repairs]")
    expect(notice).to_contain_text("read it with repairs")
    expect(notice).to_contain_text("text before the XML declaration")
    expect(notice).to_contain_text("HTML entities XML does not define")
    screenshot(page, "podcast-feed-repaired")
    page.get_by_role("button", name="Unsubscribe").click()
    page.get_by_role("dialog").get_by_role("button", name="Unsubscribe").click()
    expect(page.get_by_role("heading", name="Podcasts", level=1)).to_be_visible()


def test_radio_favourite_play_fail_over_and_reopen_paused(server, site, page):
    sign_in(server, page, "Listen")
    page.get_by_role("link", name="Radio").click()
    expect(page.get_by_role("heading", name="Radio", level=1)).to_be_visible()
    results = page.locator("[data-results] .station")
    expect(results).to_have_count(3)
    expect(page.locator("[data-favourites]")).to_contain_text("No favourites yet")
    # Icons come through the server: the station's own, and a drawn placeholder where its host
    # cannot be reached (no broken picture, no console error: the page fixture fails on one).
    wait_until(page, """[...document.querySelectorAll('[data-results] .station img')].length === 2
                        && [...document.querySelectorAll('[data-results] .station img')].every((img) => img.complete && img.naturalWidth > 0)""",
               message="a station's icon did not show")

    search = page.get_by_role("searchbox", name="Find a station")
    search.fill("jazz")
    page.get_by_role("button", name="Search").click()
    expect(page.locator(".radio-status")).to_contain_text("No station called “jazz”")
    search.fill("backup")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("heading", name="Stations found")).to_be_visible()
    expect(results).to_have_count(1)
    search.fill("")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("heading", name="Top stations")).to_be_visible()
    expect(results).to_have_count(3)

    # An HLS-only station: where the browser plays HLS itself (this Chromium does), its playlist
    # through the server; where it does not, the server's remux of it into one stream.
    hls_plays = ("import('/listen/deck.js').then(({ deck }) => deck.music.playing && deck.music.track.title === 'Owl Radio HLS'"
                 " && deck.music.audio.currentTime > 1 && deck.music.audio.src.endsWith('%s'))")
    native = page.evaluate("document.createElement('audio').canPlayType('application/vnd.apple.mpegurl') !== ''")
    results.filter(has_text="Owl Radio HLS").get_by_role("button", name="Play").click()
    wait_until(page, hls_plays % ("/stream?hls=1" if native else "/stream"), message="the HLS station did not play")
    expect(page.locator(".radio-playing")).to_contain_text("Playing: Owl Radio HLS")
    page.evaluate("""() => { const own = HTMLMediaElement.prototype.canPlayType;
        HTMLMediaElement.prototype.canPlayType = function (type) { return /mpegurl/i.test(type) ? "" : own.call(this, type); }; }""")
    results.filter(has_text="Owl Radio HLS").get_by_role("button", name="Play").click()
    wait_until(page, hls_plays % f"/api/radio/stations/{HLS_STATION}/stream", message="the remuxed HLS station did not play")

    owl = results.filter(has_text="The Wood").first
    owl.get_by_role("button", name="Add Owl Radio to favourites").click()
    expect(page.locator("[data-favourites] .station")).to_have_count(1)
    page.locator("[data-favourites] .station").get_by_role("button", name="Play").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.music.playing && deck.music.track.title === 'Owl Radio')",
               message="the station did not play")
    wait_for(page, lambda: STATION in site.clicks, message="the play was not counted with radio-browser")

    # Its listed stream is gone: the other address plays instead, and the page says so.
    expect_error(page, 502, r"/api/radio/stations/[0-9a-f-]+/stream$")
    results.filter(has_text="Owl Radio Backup").get_by_role("button", name="Play").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.music.playing && deck.music.track.title === 'Owl Radio Backup'"
                     " && deck.music.audio.src.includes('alternate=1'))", message="the station's other address was not tried")
    wait_for(page, lambda: BROKEN_STATION in site.clicks, message="the play was not counted with radio-browser")
    expect(page.locator(".radio-playing")).to_contain_text("Owl Radio Backup")
    screenshot(page, "radio")

    # Falling asleep to it: a sleep timer from Now playing.
    page.locator(".dock").get_by_role("link").first.click()
    page.get_by_role("button", name="Sleep timer").click()
    page.get_by_role("button", name="15 minutes").click()
    expect(page.locator("[data-timer]")).to_contain_text("left")
    page.go_back()

    # Closed while playing, opened again: loaded, and paused.
    page.clock.install()  # the reopened page's timers run on the page's clock
    page.reload()
    expect(page.get_by_role("heading", name="Radio", level=1)).to_be_visible()
    # The stream's own events are real time, not the page clock's: wait until the element has enough
    # of it to play through (canplaythrough, the last of the events a play by itself could follow) …
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.music.loaded && deck.music.track.title === 'Owl Radio Backup'"
                     " && !deck.music.restoring && deck.music.audio.readyState === 4)", message="the station was not restored")
    page.clock.run_for(3_000)  # … and three seconds on the page's clock: any timer the restore set comes due
    assert page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.music.playing)") is False
    expect(page.locator(".radio-playing")).to_contain_text("Paused: Owl Radio Backup")


def test_an_hls_station_on_an_iphone_plays_the_relay_that_holds_its_fade(server, site, browser):
    """An iPhone ignores an element's volume and silences Web Audio when it locks, so a station's
    level and its sleep timer's fade must be in the bytes, and only the server's relay shapes
    them. There an HLS-only station plays the server's remux, even though the browser has HLS of
    its own (as Safari does; faked here, so the choice is tested whatever this Chromium reads),
    and a timer then asks the relay for its end (issue 46)."""
    page = open_page(browser, iphone=True)
    page.add_init_script("""{ const own = HTMLMediaElement.prototype.canPlayType;
        HTMLMediaElement.prototype.canPlayType = function (type) { return /mpegurl/i.test(type) ? "maybe" : own.call(this, type); }; }""")
    sign_in(server, page, "Listen")
    page.get_by_role("link", name="Radio").click()
    station = page.locator("[data-results] .station").filter(has_text="Owl Radio HLS")
    station.get_by_role("button", name="Play").click()
    relay = f"/api/radio/stations/{HLS_STATION}/stream"
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.music.playing && deck.music.audio.currentTime > 1"
                     f" && deck.music.audio.src.endsWith('{relay}'))",
               message="the HLS station did not play through the server's relay on an iPhone")
    page.locator(".dock").get_by_role("link").first.click()
    page.get_by_role("button", name="Sleep timer").click()
    page.get_by_role("button", name="15 minutes").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.music.playing"
                     f" && new URL(deck.music.audio.src).pathname === '{relay}' && new URL(deck.music.audio.src).searchParams.has('until'))",
               message="the sleep timer's end was not asked of the relay")
    close(page)

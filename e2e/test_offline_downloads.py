"""Downloads for offline (issue 34): a Wind Down item and a book downloaded at home play from the
device with no network, seek, and keep their progress for the server; Settings → Storage counts
them as the browser does and frees their space; a sleep timer set offline fades on the audio
clock with the page's scripts stopped."""

import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import close, controlled, expect_error, open_page, screenshot, sign_in, wait_until
from listening import chapter_book, dominant_frequency, level, locked, onset, silent_from
from test_wind_down import player_time, upload

RATE = 48_000


def heard_between(sound, frequency, start, end, step=0.25):
    """Whether some second of `sound` between `start` and `end` (seconds) is a tone of `frequency`."""
    at = max(0.0, start)
    while at + 1 <= end:
        if abs(dominant_frequency(sound[int(at * RATE):int((at + 1) * RATE)]) - frequency) <= 5:
            return True
        at += step
    return False


def tone_story(folder, name, tones, seconds):
    """An MP3 of steady tones one after another, each `seconds` long: what is heard tells where."""
    path = Path(folder) / name
    inputs = []
    for tone in tones:
        inputs += ["-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=44100:duration={seconds}"]
    joined = "".join(f"[{index}:a]" for index in range(len(tones))) + f"concat=n={len(tones)}:v=0:a=1"
    subprocess.run(["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex", joined, "-ac", "1", "-b:a", "48k", str(path)], check=True)
    return path


def open_wind_down_item(page, item, title):
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Wind Down", exact=True).click()
    page.locator(f'[data-item="{item}"].wd-card').first.click()
    player = page.get_by_role("dialog", name=f"{title}, player")
    expect(player.get_by_role("button", name="Pause", exact=True)).to_be_visible()
    return player


def download_here(scope):
    scope.get_by_role("button", name="Download for offline").click()
    # The whole item is fetched into this device, which can take minutes on a busy machine.
    expect(scope.locator(".download-state.done")).to_have_text("On this device", timeout=180_000)


def kept_bytes(page):
    return page.evaluate("""caches.keys().then(async (names) => {
        let total = 0;
        for (const name of names.filter((name) => name.startsWith('reverie-download:'))) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) total += (await (await cache.match(request)).blob()).size;
        }
        return total; })""")


def test_downloads_play_and_seek_with_no_network(server, listening_browser, audio_sink, tmp_path):
    page = open_page(listening_browser)
    controlled(server, page)
    # A Wind Down story the owner gave a file (330 Hz for a minute, then 550 Hz), and a book of
    # two chapters (440 Hz, then 660 Hz).
    story = tone_story(tmp_path, "two-tones.mp3", (330, 550), 60)
    status, entry = upload(server, page, "story_bookshop_cat", story)
    assert status == 202 and entry["audio"]["state"] == "ready"
    path = chapter_book(tmp_path, "Dusk.m4b", tones=(440, 660), chapter_seconds=30, title="Dusk")
    answer = page.request.post(f"{server.url}/api/library", data=path.read_bytes(), headers={"Content-Type": "audio/mp4", "X-File-Name": path.name})
    assert answer.ok, answer.text()
    book = answer.json()["item"]

    # At home: the story from its player, the book from its page.
    page.reload()
    player = open_wind_down_item(page, "story_bookshop_cat", "The Bookshop Cat")
    download_here(player)
    screenshot(page, "offline-download-wind-down")
    player.get_by_role("button", name="Close the player").click()
    page.goto(f"{server.url}/listen/book/{book['id']}")
    expect(page.get_by_role("heading", name="Dusk", level=1)).to_be_visible()
    download_here(page.locator(".book"))

    # Settings → Storage counts them, as the browser does.
    page.goto(f"{server.url}/settings")
    storage = page.locator(".storage")
    expect(storage.get_by_role("heading", name="Wind Down")).to_be_visible()
    expect(storage.locator(".storage-item", has_text="The Bookshop Cat")).to_be_visible()
    expect(storage.locator(".storage-item", has_text="Dusk")).to_be_visible()
    on_device = kept_bytes(page)
    shown = int(storage.locator("[data-storage-summary]").get_attribute("data-downloads"))
    assert shown == on_device, (shown, on_device)
    usage = int(storage.locator("[data-storage-summary]").get_attribute("data-usage"))
    estimate = page.evaluate("navigator.storage.estimate().then((answer) => answer.usage)")
    assert usage >= on_device and abs(usage - estimate) <= max(0.05 * estimate, 200_000), (usage, estimate)
    storage.scroll_into_view_if_needed()
    screenshot(page, "settings-storage")

    # On the train: no network, the app opened again; both play from the device, and seek.
    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    page.goto(f"{server.url}/wind-down")
    with audio_sink.record() as recording:
        player = page.locator('[data-item="story_bookshop_cat"].wd-card').first
        player.click()
        player = page.get_by_role("dialog", name="The Bookshop Cat, player")
        expect(player.get_by_role("button", name="Pause", exact=True)).to_be_visible()
        wait_until(page, "document.querySelector('.player-audio').currentTime > 1")
        start = recording.seconds
        recording.wait_for_seconds(start + 1.5)
        page.evaluate("(() => { const slider = document.querySelector('.player-slider'); slider.value = 90; slider.dispatchEvent(new Event('change')); })()")
        wait_until(page, "document.querySelector('.player-audio').currentTime > 90.5")
        moved = recording.seconds
        recording.wait_for_seconds(moved + 2)
        sound = recording.samples()
    # What the element played reaches the recording a moment later, longer on a busy machine: the
    # item's opening is heard somewhere before the seek, its 90th second after it.
    assert heard_between(sound, 330, 0, moved), "the item's opening was not heard from the device"
    assert heard_between(sound, 550, moved, len(sound) / RATE), "the place sought to was not heard from the device"
    heard_to = player_time(page)
    player.get_by_role("button", name="Close the player").click()

    page.goto(f"{server.url}/listen/book/{book['id']}")
    expect(page.get_by_role("heading", name="Dusk", level=1)).to_be_visible()
    with audio_sink.record() as recording:
        page.locator('[data-chapter="1"]').click()
        wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.position > 31)")
        mark = recording.seconds
        recording.wait_for_seconds(mark + 1.5)
        sound = recording.samples(mark + 0.4, mark + 1.4)
    assert dominant_frequency(sound) == pytest.approx(660, abs=5)
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.pause())")

    # Home again: the place heard offline reaches the server.
    page.context.set_offline(False)
    page.evaluate("import('/player/progress.js').then(({ flush }) => flush())")
    wait_until(page, f"""fetch('/api/progress/winddown:story_bookshop_cat').then((answer) => answer.json())
        .then((place) => Math.abs(place.position - {heard_to}) < 5)""", message="the offline place never reached the server")

    # Removing a download frees its space (after its Undo has passed).
    page.goto(f"{server.url}/settings")
    before = page.evaluate("navigator.storage.estimate().then((answer) => answer.usage)")
    book_bytes = int(path.stat().st_size)
    page.get_by_role("button", name="Remove Dusk from this device").click()
    expect(page.locator(".storage").get_by_role("button", name="Undo")).to_be_visible()
    wait_until(page, f"navigator.storage.estimate().then((answer) => answer.usage <= {before} - {book_bytes} * 0.9)",
               message="removing the book did not free its space")
    expect(page.locator(".storage-item", has_text="Dusk")).to_have_count(0)
    expect(page.locator(".storage-item", has_text="The Bookshop Cat")).to_be_visible()
    close(page)


@pytest.mark.parametrize("iphone", [False, True], ids=["android", "iphone"])
def test_a_timer_set_offline_fades_a_download_on_the_audio_clock(server, listening_browser, audio_sink, tmp_path, iphone):
    """No rendition can be had offline: the player lays the fade and the silence out on the audio
    clock when the timer is set, and they happen with the page's scripts stopped, where Web Audio
    plays on locked (Android, a desktop). An iPhone's Web Audio falls silent when it locks, so
    there the download plays on, plainly, and the timer stops it when the screen wakes (issue 46):
    the sheet says so."""
    page = open_page(listening_browser, iphone=iphone)
    page.clock.install()
    controlled(server, page)
    # (A 15-minute timer needs more than 15 minutes left, after what plays while it downloads.)
    story = tone_story(tmp_path, "long-tone.mp3", (330,), 1200)
    status, _ = upload(server, page, "story_night_train", story)
    assert status == 202
    page.reload()
    player = open_wind_down_item(page, "story_night_train", "The Slow Night Train")
    download_here(player)

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    player.locator(".player-timer").click()
    sheet = page.get_by_role("dialog", name="Sleep timer")
    if iphone:
        expect(sheet).to_contain_text("an iPhone does not play that with the screen locked: the sound plays on, and stops when the screen wakes")
    else:
        expect(sheet).to_contain_text("Offline, the fade is made on this device.")
    sheet.get_by_role("button", name="15 minutes").click()
    expect(player.locator(".player-timer-label")).to_have_text(re.compile(r"remaining$"))
    # The page's clock runs on to 40 s before the end; a skip lays the fade out again from there.
    page.clock.fast_forward(15 * 60 * 1000 - 40_000)
    expect(player.locator(".player-timer-label")).to_have_text(re.compile(r"^0:(3\d|40) remaining$"))
    with audio_sink.record() as recording:
        player.locator(".player-forward").click()
        wait_until(page, "!document.querySelector('.player-audio').paused && document.querySelector('.player-audio').currentTime > 16")
        mark = recording.seconds
        with locked(page):
            recording.wait_for_seconds(mark + 45)
        woken = recording.seconds
        if iphone:
            expect(player.locator(".player-status")).to_contain_text("sleep timer stopped playback")
            paused = recording.seconds
            recording.wait_for_seconds(recording.seconds + 2.0)
        sound = recording.samples(mark)
    begins = onset(sound)
    assert begins is not None and begins < 2, begins
    assert dominant_frequency(sound[int((begins + 0.5) * RATE):int((begins + 1.5) * RATE)]) == pytest.approx(330, abs=5)
    ends = silent_from(sound)
    assert ends is not None, "still sounding after the timer"
    if iphone:
        # Plain, it played on through the lock at its level, and stopped once the page woke.
        assert level(sound[int(42 * RATE):int(44 * RATE)]) > level(sound[int((begins + 0.5) * RATE):int((begins + 1.5) * RATE)]) - 3
        assert woken - mark - 0.5 <= ends <= paused - mark + 1.0, (ends, woken - mark, paused - mark)
    else:
        assert 36 <= ends <= 42, ends
        # The last 30 s fall: loud 25 s before the end, far quieter 3 s before it.
        assert level(sound[int((ends - 25) * RATE):int((ends - 24) * RATE)]) > level(sound[int((ends - 3) * RATE):int((ends - 2) * RATE)]) + 12
    close(page)


def test_a_download_cut_off_goes_on_where_it_stopped(server, browser, tmp_path):
    """The connection goes mid-download: the download waits and says so, and when the network is
    back it asks only for what it lacks; the file on the device is the server's, byte for byte."""
    page = open_page(browser)
    controlled(server, page)
    path = chapter_book(tmp_path, "Long Road.mp3", tones=(300, 400, 500), chapter_seconds=260, title="Long Road")
    answer = page.request.post(f"{server.url}/api/library", data=path.read_bytes(), headers={"Content-Type": "audio/mpeg", "X-File-Name": path.name})
    assert answer.ok, answer.text()
    book = answer.json()["item"]
    size = path.stat().st_size
    assert size > 5 * 1024 * 1024, size  # three pieces at least

    ranges = []
    page.on("request", lambda request: ranges.append(request.headers.get("range")) if request.url.endswith(f"/api/library/{book['id']}/audio") else None)
    # A slow line (1 MB/s), so the cut comes mid-download.
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", {"offline": False, "latency": 20, "downloadThroughput": 1_000_000, "uploadThroughput": 1_000_000})
    page.goto(f"{server.url}/listen/book/{book['id']}")
    expect(page.get_by_role("heading", name="Long Road", level=1)).to_be_visible()
    page.get_by_role("button", name="Download for offline").click()
    record = f"import('/player/downloads.js').then(({{ downloads }}) => downloads.get('library:{book['id']}'))"
    wait_until(page, f"{record}.then((r) => r && r.received > 0 && r.received < r.total)", message="no piece arrived")

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    # (Through the same session as the slow line: Playwright's own offline switch would not cut it.)
    session.send("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    state = page.locator(".book .download-state")
    expect(state).to_contain_text("Waiting for the connection")
    kept = page.evaluate(f"{record}.then((r) => r.received)")
    assert 0 < kept < size, kept
    cut = len(ranges)  # what was asked for up to the wait
    screenshot(page, "offline-download-waiting")

    session.send("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    # The rest of the book is fetched now, which can take minutes on a busy machine.
    expect(page.locator(".book .download-state.done")).to_have_text("On this device", timeout=180_000)
    # After the wait, the first range asked for starts where the kept pieces end, and none before.
    starts = [int(value.split("=")[1].split("-")[0]) for value in ranges if value]
    resumed = [int(value.split("=")[1].split("-")[0]) for value in ranges[cut:] if value]
    assert resumed and resumed[0] == kept and min(resumed) >= kept, (kept, resumed)
    kept_pieces = [start for start in starts if start < kept]
    assert kept_pieces == sorted(set(kept_pieces)), starts  # no kept piece asked for again (only the one cut off)
    digest = page.evaluate(f"""caches.open('reverie-download:library:{book['id']}')
        .then((cache) => cache.match('/api/library/{book['id']}/audio')).then((stored) => stored.arrayBuffer())
        .then((bytes) => crypto.subtle.digest('SHA-256', bytes))
        .then((hash) => [...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, '0')).join(''))""")
    import hashlib
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    close(page)


def test_an_articles_voice_downloaded_is_heard_offline(server, browser):
    """An article's spoken audio, kept on the device in the chosen voice: offline, Listen plays it
    and the words light up as they are said, with nothing spoken by the server; and Up Next plays
    it from the device too."""
    page = open_page(browser)
    controlled(server, page)
    note = page.evaluate("""(note) => fetch('/api/articles', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify(note)}).then((answer) => answer.json())""",
        {"title": "Night Train Notes", "text": "The train left at nine. The carriage was warm and quiet.\n\nOutside, the hills went by in the dark, and the lamps of small towns passed one by one."})
    page.goto(f"{server.url}/listen/articles/{note['id']}")
    expect(page.get_by_role("heading", name="Night Train Notes", level=1)).to_be_visible()
    page.locator(".reader").get_by_role("button", name="Download for offline").click()
    expect(page.locator(".reader .download-state.done")).to_have_text("On this device", timeout=120_000)
    screenshot(page, "offline-download-article")
    # It waits in Up Next (seen once online, so the queue is on the device too).
    main = page.evaluate("fetch('/api/queues').then((answer) => answer.json())")["queues"][0]["id"]
    added = page.request.post(f"{server.url}/api/queues/{main}/entries", data={"item": f"article:{note['id']}"})
    assert added.status == 201, added.text()
    page.goto(f"{server.url}/listen/up-next")
    expect(page.locator(".queue-entries .queue-title")).to_have_text(["Night Train Notes"])
    page.goto(f"{server.url}/listen/articles/{note['id']}")

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name="Night Train Notes", level=1)).to_be_visible()
    page.get_by_role("button", name="Listen").click()
    wait_until(page, "document.querySelector('.reader-text .w.spoken') !== null", message="no word lit up offline")
    first = int(page.locator(".reader-text .w.spoken").first.get_attribute("data-at"))
    wait_until(page, f"Number(document.querySelector('.reader-text .w.spoken')?.dataset.at) > {first + 10}",
               message="the light did not move on offline")
    page.get_by_role("button", name="Pause").click()

    # Still offline, Up Next plays the article from its download: nothing asked to be spoken.
    speaking = []
    page.on("request", lambda request: speaking.append(request.url) if request.method == "POST" and "/api/speech/renders" in request.url else None)
    page.goto(f"{server.url}/listen/up-next")
    expect(page.locator(".queue-entries .queue-title")).to_have_text(["Night Train Notes"])
    page.get_by_role("button", name="Play Up Next").click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.track?.album === 'Night Train Notes' && deck.speech.position > 0.5)",
               message="Up Next did not play the downloaded article offline")
    assert speaking == [], speaking
    screenshot(page, "offline-up-next-article")
    close(page)


def test_bedsides_pool_downloaded_plays_with_no_network(server, browser):
    """Bedside's meditations, spoken in the person's voice and kept with the room sounds: offline,
    the leaf plays one of them from the device, with its captions, over the rain."""
    from test_bedside import open_bedside
    page = open_page(browser)
    open_bedside(server, page)
    wait_until(page, "navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    wait_until(page, "navigator.serviceWorker.controller !== null")
    page.get_by_role("button", name="My Content").click()
    sheet = page.get_by_role("dialog", name="My Content")
    sheet.get_by_role("button", name="Download for offline").click()
    expect(sheet.locator(".download-state.done")).to_have_text("On this device", timeout=240_000)
    screenshot(page, "offline-download-bedside")
    sheet.get_by_role("button", name="Close").click()
    record = page.evaluate("import('/player/downloads.js').then(({ downloads }) => downloads.list().find((r) => r.area === 'bedside'))")
    titles = {entry["piece"]["title"] for entry in record["meta"]["pieces"]}
    assert len(titles) >= 10 and record["status"] == "ready", record["title"]

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("toolbar", name="Bedside")).to_be_visible()
    page.get_by_role("button", name="Content off. Play a meditation").click()
    wait_until(page, "document.querySelector('.bs-voice').currentTime > 1", message="no meditation played offline")
    assert page.locator(".bs-title").inner_text().split(" · ")[0] in titles
    expect(page.locator(".bs-caption")).to_be_visible()
    wait_until(page, "(() => { const room = document.querySelector('.bs-room-sound'); return room && !room.paused && room.currentTime > 0.5; })()",
               message="the rain did not play offline")
    close(page)


def test_episodes_offline_follow_the_podcast_rules(server, listening_browser, audio_sink):
    """Keep the latest episode, and remove one once played: the older download goes when a newer
    one is kept; offline the newer plays from the device and seeks, and leaves it once heard."""
    page = open_page(listening_browser)
    controlled(server, page)
    podcast = page.request.post(f"{server.url}/api/podcasts", data={"feedURL": f"{server.podcasts.url}/feeds/night.xml"})
    assert podcast.ok, podcast.text()
    episodes = {episode["title"]: episode for episode in page.request.get(f"{server.url}/api/podcasts/{podcast.json()['id']}").json()["episodes"]}

    page.goto(f"{server.url}/settings")
    storage = page.locator(".storage")
    storage.get_by_label("Remove an episode from this device once it is played").check()
    storage.get_by_label("Keep on this device, per podcast").select_option(label="The latest episode")
    for title in ("Moths at the Window", "The Tawny Owl"):  # the older first
        page.goto(f"{server.url}/listen/episode/{episodes[title]['id']}")
        expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
        download_here(page.locator(".episode-page"))
    page.goto(f"{server.url}/settings")
    expect(storage.locator(".storage-item", has_text="The Tawny Owl")).to_be_visible()
    expect(storage.locator(".storage-item", has_text="Moths at the Window")).to_have_count(0)

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    owl = episodes["The Tawny Owl"]
    page.goto(f"{server.url}/listen/episode/{owl['id']}")
    expect(page.get_by_role("heading", name="The Tawny Owl", level=1)).to_be_visible()
    with audio_sink.record() as recording:
        page.locator(".episode-actions").get_by_role("button", name="Play", exact=True).click()
        wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing)")
        # From its beginning, wherever this person's place was (another test may have played it).
        page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.seek(0.5))")
        wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.position > 1 && deck.speech.position < 6)")
        start = recording.seconds
        recording.wait_for_seconds(start + 1.5)
        page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.speech.seek(15))")
        wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.position > 15.5)")
        moved = recording.seconds
        recording.wait_for_seconds(moved + 1.5)
        sound = recording.samples()
    assert dominant_frequency(sound[int((start - 0.5) * RATE):int((start + 0.5) * RATE)]) == pytest.approx(220, abs=5)
    assert dominant_frequency(sound[int((moved + 0.5) * RATE):int((moved + 1.5) * RATE)]) == pytest.approx(330, abs=5)
    # Heard to its end: off the device.
    wait_until(page, f"import('/player/downloads.js').then(({{ downloads }}) => !downloads.get('podcast:{owl['id']}'))",
               message="the played episode stayed on the device")
    close(page)


@pytest.mark.parametrize("iphone", [False, True], ids=["android", "iphone"])
def test_a_timer_set_offline_fades_a_downloaded_book_on_its_gain(server, listening_browser, audio_sink, tmp_path, iphone):
    """Listen's player the same way: offline, the timer's rendition is the book's whole file from
    the device, so the fade is a ramp on the speech player's gain that runs with the scripts
    stopped, where Web Audio plays on locked. On an iPhone the book plays on, plainly, through the
    lock, and the timer stops it when the page wakes (issue 46)."""
    page = open_page(listening_browser, iphone=iphone)
    controlled(server, page)
    path = chapter_book(tmp_path, "Evening.m4b", tones=(440, 554), chapter_seconds=60, title="Evening")
    answer = page.request.post(f"{server.url}/api/library", data=path.read_bytes(), headers={"Content-Type": "audio/mp4", "X-File-Name": path.name})
    assert answer.ok, answer.text()
    book = answer.json()["item"]
    page.goto(f"{server.url}/listen/book/{book['id']}")
    expect(page.get_by_role("heading", name="Evening", level=1)).to_be_visible()
    download_here(page.locator(".book"))

    expect_error(page, "offline", r"/api/")
    expect_error(page, "aborted", r"/api/")
    page.context.set_offline(True)
    page.locator('[data-chapter="0"]').click()
    wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.playing && deck.speech.position > 0.5)")
    page.evaluate("import('/listen/deck.js').then(({ deck }) => deck.setTimer(15))")
    with audio_sink.record() as recording:
        recording.wait_for_seconds(1.0)
        mark = recording.seconds
        # Test-only, as Listen's sleep tests do: the timer's end brought near, the fade laid out again.
        page.evaluate("import('/listen/deck.js').then(({ deck }) => { deck.timer.endsAt = Date.now() + 34_000; deck.retime(); })")
        if iphone:
            # Once the player plays the whole file again (the rendition it asked for offline failed over).
            wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.timer && deck.speech.playing && !deck.speech.request && !deck.speech.switching"
                             " && !deck.speech.rendition && !deck.speech.fadeOut && !deck.speech.graph)",
                       message="a fade was laid on the book's gain on an iPhone")
        else:
            wait_until(page, "import('/listen/deck.js').then(({ deck }) => deck.speech.fadeOut && deck.speech.graph && !deck.speech.rendition)",
                       message="no fade was laid on the book's gain offline")
        ends = mark + 34.0
        steady = recording.seconds + 0.5  # the book sounds steadily from here
        with locked(page):
            recording.wait_for_seconds(ends + 3.0)
        woken = recording.seconds
        if iphone:
            wait_until(page, "import('/listen/deck.js').then(({ deck }) => !deck.speech.playing && !deck.timer)", message="the timer did not stop the book on waking")
            paused = recording.seconds  # (what was on its way when it paused is heard ~0.2–0.4 s on)
            recording.wait_for_seconds(recording.seconds + 2.0)
        sound = recording.samples()
    assert dominant_frequency(sound[int(steady * RATE):int((steady + 1) * RATE)]) == pytest.approx(440, abs=5)
    stops = silent_from(sound)
    if iphone:
        assert level(sound[int((ends + 1) * RATE):int((ends + 2.5) * RATE)]) > level(sound[int(steady * RATE):int((steady + 1) * RATE)]) - 3, \
            "the book did not play on through the lock"
        assert stops is not None and woken - 0.5 <= stops <= paused + 1.0, (stops, woken, paused)
    else:
        assert stops is not None and ends - 1.5 <= stops <= ends + 2.0, (stops, ends)
        assert level(sound[int((ends - 25) * RATE):int((ends - 24) * RATE)]) > level(sound[int((ends - 3) * RATE):int((ends - 2) * RATE)]) + 12
    close(page)


def test_a_meditation_downloaded_plays_with_no_network(server, browser):
    """Meditate's chosen length, downloaded with its plan and its one sound: offline, Start plays
    it from the device (issue 46), the session runs where its sound is, and its record reaches
    the server once it can be reached again. Settings → Storage counts it under Meditate."""
    page = open_page(browser)
    controlled(server, page)
    page.goto(f"{server.url}/meditate")
    page.get_by_text("10minutes").click()
    setup = page.locator(".meditate-setup")
    setup.get_by_role("button", name="Download for offline").click()
    # Its narration is spoken on a new server's first plan, then the whole session is fetched.
    expect(setup.locator(".download-state.done")).to_have_text("On this device", timeout=240_000)
    screenshot(page, "offline-download-meditate")
    record = page.evaluate("import('/player/downloads.js').then(({ downloads }) => downloads.list().find((r) => r.area === 'meditate'))")
    assert record["status"] == "ready" and record["meta"]["plan"]["durationMinutes"] == 10, record
    sound = record["meta"]["plan"]["sound"]["url"]
    # Another length has a control of its own, not downloaded.
    page.get_by_text("5minutes").click()
    expect(setup.get_by_role("button", name="Download for offline")).to_be_visible()
    page.get_by_text("10minutes").click()
    expect(setup.locator(".download-state.done")).to_have_text("On this device")

    expect_error(page, "offline", r"/")
    expect_error(page, "aborted", r"/")
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.context.set_offline(True)
    page.reload()
    page.get_by_text("10minutes").click()
    page.get_by_role("button", name="Start").click()
    wait_until(page, "(() => { const audio = document.querySelector('audio.meditation-sound'); return audio && !audio.paused && audio.currentTime > 1; })()",
               message="the downloaded meditation did not play offline")
    assert (page.evaluate("document.querySelector('audio.meditation-sound').getAttribute('src')")) == sound
    expect(page.get_by_role("alertdialog")).to_be_hidden()
    assert not [url for url in asked if "/api/meditation/plan?" in url], "a plan was asked for: the kept one plays"
    # Ended early (the wall clock ran seconds, not minutes): kept here, sent once back online.
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    expect(page.locator("[data-waiting]")).to_contain_text("kept on this device")
    page.context.set_offline(False)
    wait_until(page, "fetch('/api/meditation-sessions/latest').then((r) => r.json()).then((latest) => latest !== null)",
               message="the offline session did not reach the server once online")

    page.goto(f"{server.url}/settings")
    expect(page.locator("#storage-meditate")).to_contain_text("Meditate")
    expect(page.locator(".storage-items").last).to_contain_text("Basic Breathing, 10 minutes")
    close(page)

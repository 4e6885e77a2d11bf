"""The headset and the lock screen (issue 31): the Media Session has one owner, whatever is sounding
(Web/player/media-session.js). One page visits every area that plays — Listen, an article read
aloud, Meditate, Bedside, Wind Down and the song's player in Write — and after each step the
`pause` the browser holds pauses what is sounding and its `play` plays it again; when each area
stops, the lock screen goes back to Listen, and at the end Listen's `play` resumes Listen.

The handlers are the ones the browser holds: an init script keeps the latest handler set for each
action in `window.__mediaHandlers`, and every media element that plays in `window.__media`, so
"what is sounding" is read from the elements themselves."""

import json

import pytest
from playwright.sync_api import expect

from conftest import close, expect_error, open_page, screenshot, sign_in, wait_until
from test_wind_down import wait_for_audio
from test_listen import make

pytestmark = pytest.mark.real_speech  # Meditate's narration and Wind Down's yoga nidra are spoken by Piper on a new checkout

SONG = "Night Song"
ARTICLE = "The Night Ferry"
QUICK_VOICE = "en-us"  # Bedside's quick voice, as in test_bedside.py
SPOKEN = 180  # seconds a first render may take on a busy machine

INIT = """
window.__mediaHandlers = {};
window.__media = new Set();
if (navigator.mediaSession) {
  const set = navigator.mediaSession.setActionHandler.bind(navigator.mediaSession);
  navigator.mediaSession.setActionHandler = (action, handler) => { set(action, handler); window.__mediaHandlers[action] = handler; };
}
const play = HTMLMediaElement.prototype.play;
HTMLMediaElement.prototype.play = function () { window.__media.add(this); return play.call(this); };
"""

# The media elements sounding now, each named by its class, Listen's channel or its address.
SOUNDING = """[...window.__media].filter((m) => !m.paused && !m.ended && m.getAttribute('src'))
    .map((m) => m.className || (m.dataset.channel ? `listen-${m.dataset.channel}` : new URL(m.src).pathname))"""


def press(page, action):
    """Calls the handler the browser holds for `action`, as the headset or the lock screen does."""
    assert page.evaluate(f"typeof window.__mediaHandlers['{action}']") == "function", \
        f"no {action} handler; the lock screen shows {lock_screen(page)}"
    page.evaluate(f"() => {{ window.__mediaHandlers['{action}']({{ action: '{action}' }}); }}")


def lock_screen(page):
    return page.evaluate("""() => { const m = navigator.mediaSession.metadata;
        return { title: m ? m.title : null, state: navigator.mediaSession.playbackState }; }""")


def wait_shown(page, title, state=None):
    condition = f"navigator.mediaSession.metadata?.title === {title!r}"
    if state:
        condition += f" && navigator.mediaSession.playbackState === '{state}'"
    wait_until(page, condition, message=f"the lock screen shows {lock_screen(page)}, not {title} {state or ''}")


def wait_sounding(page, names, message):
    """Waits until what sounds (the Bedside room left out: it is the room, not the piece) is `names`."""
    want = json.dumps(json.dumps(sorted(names)))
    wait_until(page, f"JSON.stringify(({SOUNDING}).filter((n) => n !== 'bs-room-sound').sort()) === {want}",
               message=f"{message}: sounding {page.evaluate(SOUNDING)}")


def wait_silent_then_back(page, label, check_paused, check_playing, elements=True):
    """The headset's pause silences the area and keeps the lock screen; its play resumes the area.
    `elements`: the area sounds through media elements (the song's loop is Web Audio: its state is read)."""
    before = page.evaluate(SOUNDING)
    assert bool(before) == elements, f"{label}: sounding {before} before the pause"
    press(page, "pause")
    wait_until(page, check_paused, message=f"{label}: the headset's pause did not pause it (sounding {page.evaluate(SOUNDING)})")
    wait_sounding(page, [], f"{label}: something still sounds after the pause")
    shown = lock_screen(page)
    assert shown["state"] == "paused", f"{label}: {shown}"
    press(page, "play")
    wait_until(page, check_playing, message=f"{label}: the headset's play did not resume it")


def back_to_listen(page, label):
    """The area stopped: the lock screen shows Listen again (paused), with Listen's buttons."""
    wait_shown(page, SONG, "paused")
    wait_sounding(page, [], f"{label} still sounds after it closed")


def area(page, name):
    page.get_by_role("navigation", name="Areas").get_by_role("link", name=name, exact=True).click()


def test_the_owner_takes_updates_and_releases(server, page):
    """The owner's rule on a session of the test's own: exactly the owner's handlers, updates only
    from the owner, a pause keeps it, and a release goes back to the most recent claimant playing,
    else to the most recent one holding, else clears; without a Media Session nothing breaks."""
    expect_error(page, 404, r"/favicon\.ico$")  # a bare image asks for it; the app's pages name their icons
    page.goto(server.url + "/icons/icon.svg")  # the app's origin, without running the app
    problems = page.evaluate("""async () => {
        const { LockScreenOwner, ACTIONS } = await import('/player/media-session.js');
        const problems = [];
        const check = (what, got, want) => { if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`); };
        const session = { metadata: null, playbackState: "none", handlers: {}, position: null,
            setActionHandler(action, handler) { this.handlers[action] = handler; },
            setPositionState(state) { this.position = state ?? null; } };
        class Metadata { constructor(data) { Object.assign(this, data); } }
        const owner = new LockScreenOwner(session, Metadata);
        const playing = { A: false, B: false, C: false };
        const claim = (name, handlers) => owner.claim(name, { metadata: () => ({ title: name }), isPlaying: () => playing[name], handlers,
            position: () => ({ duration: 60, position: 90, playbackRate: 1 }) });
        const a = claim("A", { play: () => "A play", pause: () => "A pause", seekto: () => "A seek" });
        const b = claim("B", { play: () => "B play", pause: () => "B pause" });
        const c = claim("C", { play: () => "C play", pause: () => "C pause", nexttrack: () => "C next" });
        const shown = () => ({ title: session.metadata?.title ?? null, state: session.playbackState,
            handlers: Object.fromEntries(ACTIONS.filter((action) => session.handlers[action]).map((action) => [action, session.handlers[action]()])) });

        playing.A = true; a.take();
        check("A takes", shown(), { title: "A", state: "playing", handlers: { play: "A play", pause: "A pause", seekto: "A seek" } });
        check("the position is kept within the length", session.position, { duration: 60, position: 60, playbackRate: 1 });
        check("every action is set", Object.keys(session.handlers).sort(), [...ACTIONS].sort());
        playing.B = true; b.take();
        check("B takes: A's seek goes", shown(), { title: "B", state: "playing", handlers: { play: "B play", pause: "B pause" } });
        a.update();
        check("A's update while B owns", shown().title, "B");
        playing.B = false; b.update();
        check("B paused keeps it", shown(), { title: "B", state: "paused", handlers: { play: "B play", pause: "B pause" } });
        playing.A = false; b.release();
        check("B releases: back to A, paused", shown(), { title: "A", state: "paused", handlers: { play: "A play", pause: "A pause", seekto: "A seek" } });
        b.take(); c.take(); playing.A = true;
        c.release();
        check("C releases: A plays, so A before B", shown().title, "A");
        a.release();
        check("A releases: B still holds", shown(), { title: "B", state: "paused", handlers: { play: "B play", pause: "B pause" } });
        b.release();
        check("the last release clears", shown(), { title: null, state: "none", handlers: {} });
        c.release(); a.release();
        check("a release without a hold changes nothing", shown().title, null);
        c.offer();
        check("an offer on a free lock screen takes it", shown().title, "C");
        a.offer();
        check("an offer on a held one does not", shown().title, "C");

        const none = new LockScreenOwner(null, null);
        const lone = none.claim("Lone", { metadata: () => ({ title: "Lone" }), isPlaying: () => true, handlers: {} });
        try { lone.take(); lone.update(); lone.release(); } catch (error) { problems.push(`without a Media Session: ${error}`); }
        return problems;
    }""")
    assert problems == []


def test_every_area_gives_the_headset_back(server, browser):
    """Listen, an article, Meditate, Bedside, Wind Down and the song's player, one after another in
    one page: each holds the headset while it sounds and gives it back to Listen when it stops."""
    page = open_page(browser)
    page.add_init_script(INIT)
    sign_in(server, page, "Listen")
    page.locator("[data-upload]").set_input_files(str(make(f"{SONG}.mp3", 90, SONG, frequency=330)))
    # The server levels the upload, which can take minutes on a busy machine.
    wait_until(page, "fetch('/api/library').then(r => r.json()).then(b => b.items.length === 1)", timeout=180, message="the song did not arrive")
    song_id = page.evaluate("fetch('/api/library').then(r => r.json()).then(b => b.items[0].id)")
    page.evaluate("""(note) => fetch('/api/articles', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify(note)}).then((answer) => answer.json())""",
                  {"title": ARTICLE, "text": "The night ferry leaves the harbour at eleven. Its lights move slowly across the dark water, "
                                             "and the gulls sleep on the breakwater while the engines hum. Nobody on the quay says a word."})
    answer = page.request.patch(server.url + "/api/settings", data={"bedside": {
        "contentMode": "off", "voice": QUICK_VOICE, "captions": True, "room": "rain", "rate": 1,
        "contentCompletedSuccessfully": False, "alarm": {"time": "07:00", "enabled": False, "days": []}}})
    assert answer.ok, answer.text()

    # Listen: the song plays and holds the lock screen; the headset pauses it and plays it again.
    area(page, "Listen")  # the library again, with the song in it
    page.get_by_role("tab", name="Music").click()
    page.locator(".listen-item", has_text=SONG).locator("[data-play]").click()
    wait_sounding(page, ["listen-music"], "the song did not start")
    wait_shown(page, SONG, "playing")
    wait_silent_then_back(page, "Listen", "window.__media.size && ![...window.__media].some((m) => m.dataset.channel && !m.paused)",
                          f"{SOUNDING}.includes('listen-music')")
    # Play only plays and pause only pauses (issue 46): a play while it plays does not stop it, a
    # pause while nothing plays does not start it.
    press(page, "play")
    wait_sounding(page, ["listen-music"], "a play while the song played stopped it")
    wait_shown(page, SONG, "playing")
    press(page, "pause")
    wait_sounding(page, [], "Listen did not pause again")
    press(page, "pause")
    wait_shown(page, SONG, "paused")
    wait_sounding(page, [], "a pause while nothing played started the song")

    # An article read aloud: the reader takes the headset while it speaks, and gives it back on leaving.
    page.get_by_role("link", name="Articles").click()
    page.get_by_role("link", name=ARTICLE).click()
    expect(page.get_by_role("heading", name=ARTICLE, level=1)).to_be_visible()
    page.get_by_role("button", name="Listen").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible(timeout=SPOKEN * 1000)
    wait_shown(page, ARTICLE, "playing")
    reader = page.locator("[data-listen]")
    wait_silent_then_back(page, "the article", "document.querySelector('[data-listen]').textContent === 'Resume'",
                          "document.querySelector('[data-listen]').textContent === 'Pause'")
    expect(reader).to_have_text("Pause")
    page.get_by_role("link", name="Articles").click()  # the reader closes
    back_to_listen(page, "the article")

    # Meditate: the session takes the headset; ending it gives it back.
    area(page, "Meditate")
    page.get_by_text("5minutes").click()
    page.get_by_role("button", name="Start").click()
    expect(page.locator("[data-phase]")).to_have_text("Introduction", timeout=SPOKEN * 1000)
    wait_shown(page, "Basic Breathing", "playing")
    wait_silent_then_back(page, "Meditate", "document.querySelector('[data-phase]').textContent === 'Paused'",
                          f"document.querySelector('[data-phase]').textContent !== 'Paused' && {SOUNDING}.length > 0")
    page.get_by_role("button", name="End").click()
    page.get_by_role("button", name="End Session").click()
    expect(page.get_by_role("heading", name="Session ended")).to_be_visible()
    back_to_listen(page, "Meditate")

    # Bedside: a meditation spoken over the room takes the headset (the room's rain plays on under
    # a paused piece: it is the room, not what the headset pauses); leaving Bedside gives it back.
    area(page, "Bedside")
    expect(page.get_by_role("toolbar", name="Bedside")).to_be_visible()
    page.get_by_role("button", name="Content off. Play a meditation").click()
    wait_until(page, "(() => { const v = document.querySelector('.bs-voice'); return !v.paused && v.currentTime > 0.3; })()",
               timeout=SPOKEN, message="the meditation never played")
    piece = page.locator(".bs-title").inner_text().split(" · ")[0]
    wait_shown(page, piece, "playing")
    wait_silent_then_back(page, "Bedside", "document.querySelector('.bs-voice').paused",
                          "!document.querySelector('.bs-voice').paused")
    area(page, "Listen")
    back_to_listen(page, "Bedside")

    # Wind Down: the full-screen player takes the headset; closing it gives it back.
    wait_for_audio(page, "yoga_nidra_5min")  # (spoken on its first play: this asks for its first bytes, then waits)
    area(page, "Wind Down")
    page.locator('[data-item="yoga_nidra_5min"].wd-card').first.click()
    player = page.get_by_role("dialog", name="Quick Yoga Nidra, player")
    # One tap on the card plays.
    expect(player.get_by_role("button", name="Pause", exact=True)).to_be_visible()
    wait_until(page, "document.querySelector('.player-audio').currentTime > 0.3", message="the yoga nidra did not play")
    wait_shown(page, "Quick Yoga Nidra", "playing")
    wait_silent_then_back(page, "Wind Down", "document.querySelector('.player-audio').paused",
                          "!document.querySelector('.player-audio').paused")
    player.get_by_role("button", name="Close the player").click()
    expect(player).to_have_count(0)
    back_to_listen(page, "Wind Down")

    # Write: the song's loop (Web Audio, no media element) takes the headset; leaving Write gives it back.
    area(page, "Write")
    page.get_by_role("button", name="New song").click()
    page.get_by_label("Title", exact=True).fill("Ferry Song")
    page.get_by_role("textbox", name="Lyrics").fill("Lights across the water")
    expect(page.locator("[data-save]")).to_have_text("Saved")
    page.get_by_role("button", name="Player: the song's tracks and loop").click()
    sheet = page.get_by_role("dialog", name="Player")
    sheet.locator("[data-music]").select_option(song_id)
    expect(sheet.locator(".track")).to_have_count(1)
    sheet.get_by_role("button", name="Play", exact=True).click()
    toggle = "document.querySelector('.mini-player [data-toggle]').getAttribute('aria-label')"
    wait_until(page, f"{toggle} === 'Pause'", message="the song's track did not play")
    wait_shown(page, SONG, "playing")  # the track is the song uploaded to Listen, shown as Write's
    assert page.evaluate("navigator.mediaSession.metadata.album") == "Write"
    wait_silent_then_back(page, "Write", f"{toggle} === 'Play'", f"{toggle} === 'Pause'", elements=False)
    sheet.get_by_role("button", name="Done").click()
    area(page, "Listen")
    wait_until(page, "navigator.mediaSession.metadata?.album !== 'Write'", message="leaving Write kept its lock screen")
    back_to_listen(page, "Write")

    # The end: Listen's play resumes Listen, and its pause pauses it.
    press(page, "play")
    wait_sounding(page, ["listen-music"], "Listen's play did not resume the song")
    wait_shown(page, SONG, "playing")
    screenshot(page, "headset-back-to-listen")
    press(page, "pause")
    wait_sounding(page, [], "Listen's pause did not pause the song")
    close(page)

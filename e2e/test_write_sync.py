"""Write: the sync switch — off keeps songs on this device and sends none; on again merges."""

from playwright.sync_api import expect

from conftest import expect_error, screenshot, sign_in

SAVE = """([id, version, lyrics]) => fetch(`/api/compositions/${id}`, {method: 'PUT',
    headers: {'Content-Type': 'application/json', 'If-Match': `"${version}"`},
    body: JSON.stringify({title: 'Shared Song', lyrics})}).then(r => r.status)"""


def test_sync_off_on_a_shared_computer_and_back_on_with_a_conflict(server, page):
    sign_in(server, page, "Write")
    song = page.evaluate("""fetch('/api/compositions', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({title: 'Shared Song', lyrics: 'The first line we wrote'})}).then(r => r.json())""")

    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings").click()
    switch = page.get_by_label("Sync this device's songs with the server")
    expect(switch).to_be_checked()
    expect(page.locator("[data-sync-explain]")).to_contain_text("On: songs you write here are saved to your Reverie server")
    switch.uncheck()
    expect(page.locator("[data-sync-done]")).to_have_text("Sync is off. 1 song is kept on this device.")
    expect(page.locator("[data-sync-explain]")).to_contain_text("Turning it off never deletes anything")
    page.locator("#sync-heading").scroll_into_view_if_needed()
    screenshot(page, "settings-sync-off")

    # Sync off: the list is this device's, an edit and a new song stay here, nothing is sent.
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Write").click()
    expect(page.get_by_text("Sync is off on this device")).to_be_visible()
    page.locator(".song-link", has_text="Shared Song").click()
    lyrics = page.get_by_role("textbox", name="Lyrics")
    expect(lyrics).to_have_value("The first line we wrote")
    expect(page.get_by_role("button", name="Player: the song's tracks and loop")).to_be_hidden()
    lyrics.fill("The first line we wrote\nA line from the shared computer")
    expect(page.locator("[data-save]")).to_have_text("Saved on this device")
    page.get_by_role("link", name="Back to your songs").click()
    page.get_by_role("button", name="New song").click()
    page.get_by_label("Title", exact=True).fill("Only Here")
    page.get_by_role("textbox", name="Lyrics").fill("Written with sync off")
    expect(page.locator("[data-save]")).to_have_text("Saved on this device")
    page.get_by_role("link", name="Back to your songs").click()
    expect(page.locator(".song")).to_have_count(2)
    page.get_by_label("Search titles and lyrics").fill("shared computer")
    expect(page.locator(".song")).to_have_count(1)
    expect(page.locator(".song .snippet")).to_have_text("A line from the shared computer")

    server_songs = page.evaluate("fetch('/api/compositions').then(r => r.json())")
    assert [s["title"] for s in server_songs] == ["Shared Song"], server_songs
    kept = page.evaluate(f"fetch('/api/compositions/{song['id']}').then(r => r.json())")
    assert kept["lyrics"] == "The first line we wrote" and kept["version"] == 1, kept

    # Meanwhile the song changes on another device.
    assert page.evaluate(SAVE, [song["id"], 1, "The first line we wrote\nA line from the phone"]) == 200

    # Sync on again: the new song goes up, and the edit made on both sides keeps both.
    expect_error(page, 412, r"/api/compositions/[0-9A-Fa-f-]+$")  # the edit made on both sides
    page.get_by_role("navigation", name="Areas").get_by_role("link", name="Settings").click()
    # A tap, then what it leads to (the switch settles once the songs are sent): asserting the
    # state at the instant of the tap raced the sending; a refusal shows its words here.
    switch = page.get_by_label("Sync this device's songs with the server")
    switch.click()
    done = page.locator("[data-sync-done]")
    expect(page.locator('[data-sync-done]:not([hidden]), [data-for="sync"]:not([hidden])')).to_be_visible()
    expect(page.locator('[data-for="sync"]')).to_be_hidden()
    expect(switch).to_be_checked()
    expect(done).to_contain_text("1 new song sent")
    expect(done).to_contain_text("this device's version is kept as “Shared Song (conflict copy)”")
    titles = sorted(s["title"] for s in page.evaluate("fetch('/api/compositions').then(r => r.json())"))
    assert titles == ["Only Here", "Shared Song", "Shared Song (conflict copy)"], titles
    current = page.evaluate(f"fetch('/api/compositions/{song['id']}').then(r => r.json())")
    assert current["lyrics"].endswith("A line from the phone"), current
    copies = page.evaluate("fetch('/api/compositions?q=computer').then(r => r.json())")
    assert [c["title"] for c in copies] == ["Shared Song (conflict copy)"], copies
    screenshot(page, "settings-sync-on")

"""Podcast apps against a real Reverie: mygpoclient, the library gPodder syncs with (Debian's
python3-mygpoclient), signs in with an app password from Settings → Apps and keeps subscriptions
and episode actions in step across two devices, with `since` read as gpodder.net's clients read
it. No browser: these are the app's own requests."""

import datetime
import sys

import pytest

from conftest import BINARY, PATIENCE, eventually
from podcast_fixture import PodcastFixture
from reverie_process import ReverieProcess, call

# Debian installs it for the system Python; it is pure Python, so the tests' venv reads it there
# (after its own packages, which stay first).
sys.path.append("/usr/lib/python3/dist-packages")
mygpoclient = pytest.importorskip("mygpoclient", reason="python3-mygpoclient is installed by scripts/bootstrap.sh test")
from mygpoclient import api as gpodder  # noqa: E402
from mygpoclient import http as gpodder_http  # noqa: E402


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


def test_gpodder_syncs_two_devices_through_reverie(server, site):
    token = server.owner_token("ada", "correct horse battery", "tests")
    bearer = {"Authorization": f"Bearer {token}"}
    app = call(server.url + "/api/apps", "POST", {"kind": "gpodder", "name": "gPodder on the laptop"}, bearer)[2]
    night, salt = f"{site.url}/feeds/night.xml", f"{site.url}/feeds/salt.xml"

    phone = gpodder.MygPodderClient("ada", app["secret"], root_url=server.url)
    laptop = gpodder.MygPodderClient("ada", app["secret"], root_url=server.url)
    assert phone.update_device_settings("phone", caption="Ada's phone", type="mobile")
    start = phone.pull_subscriptions("phone")
    assert start.add == [] and start.remove == []

    # The phone subscribes; the laptop, asking since the phone's first look, hears of both.
    added = phone.update_subscriptions("phone", add_urls=[night, salt])
    assert added.update_urls == []
    on_laptop = laptop.pull_subscriptions("laptop", since=start.since)
    assert sorted(on_laptop.add) == sorted([night, salt]) and on_laptop.remove == []
    # Nothing new since then, bar what the same second may say again.
    assert set(laptop.pull_subscriptions("laptop", since=on_laptop.since).add) <= {night, salt}
    devices = {device.device_id: device for device in phone.get_devices()}
    assert set(devices) == {"phone", "laptop"} and devices["phone"].caption == "Ada's phone" and devices["phone"].type == "mobile"

    # Reverie has them too, read by its refresh schedule.
    def salt_episodes():
        podcasts = call(server.url + "/api/podcasts", headers=bearer)[2]["podcasts"]
        show = next((p for p in podcasts if p["feedURL"] == salt), None)
        if not show:
            return None
        return call(server.url + f"/api/podcasts/{show['id']}", headers=bearer)[2]["episodes"] or None
    episodes = eventually(salt_episodes, PATIENCE, "the salt feed never read")
    fish = next(e for e in episodes if e.get("enclosureURL", "").endswith("/audio/episode.mp3"))

    # The phone played 7 s of it: Reverie's place for the episode.
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    played = gpodder.EpisodeAction(salt, fish["enclosureURL"], "play", device="phone", timestamp=stamp, started=0, position=7, total=24)
    after_phone = phone.upload_episode_actions([played])
    assert call(server.url + f"/api/episodes/{fish['id']}", headers=bearer)[2]["position"] == 7

    # Listening on in Reverie's web app: the laptop is told, as a play action of device "web".
    item = f"podcast:{fish['id']}"
    call(server.url + "/api/progress/events", "POST", {"events": [
        {"id": "web-ada-1", "item": item, "device": "web", "at": stamp + "Z", "position": 12, "kind": "pause"}]}, bearer)
    changes = laptop.download_episode_actions(since=after_phone)
    web = [a for a in changes.actions if a.device == "web"]
    assert len(web) == 1 and web[0].action == "play" and web[0].position == 12 and web[0].total == 24 and web[0].episode == fish["enclosureURL"]
    assert web[0].podcast == salt
    # By device: only the phone's own.
    assert [a.device for a in laptop.download_episode_actions(since=0, device_id="phone").actions] == ["phone"]
    # By podcast: none for the other feed.
    assert laptop.download_episode_actions(since=0, podcast=night).actions == []

    # The simple API: a tablet puts its whole list (the night feed only), so the salt feed goes.
    assert phone.put_subscriptions("tablet", [night])
    assert phone.get_subscriptions("tablet") == [night]
    later = laptop.pull_subscriptions("laptop", since=on_laptop.since)
    assert later.remove == [salt]
    listed = call(server.url + "/api/podcasts", headers=bearer)[2]["podcasts"]
    assert [p["feedURL"] for p in listed] == [night]

    # Settings → Apps says what it did; a wrong password and a revoked app are refused.
    shown = call(server.url + "/api/apps", headers=bearer)[2]
    assert shown[0]["lastUsedAt"] and shown[0]["lastAction"]
    with pytest.raises(gpodder_http.Unauthorized):
        gpodder.MygPodderClient("ada", "wrong-password", root_url=server.url).pull_subscriptions("phone")
    with pytest.raises(gpodder_http.Unauthorized):
        gpodder.MygPodderClient("ada", "correct horse battery", root_url=server.url).pull_subscriptions("phone")
    call(server.url + f"/api/apps/{app['id']}", "DELETE", headers=bearer)
    with pytest.raises(gpodder_http.Unauthorized):
        gpodder.MygPodderClient("ada", app["secret"], root_url=server.url).pull_subscriptions("phone")

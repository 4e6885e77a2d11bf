"""Write: the song's player — tracks attached to a song, the mini-player, the A–B loop."""

import subprocess
import tempfile
from pathlib import Path

from playwright.sync_api import expect

from conftest import PATIENCE, screenshot, sign_in, wait_until
from shared_cases import shared_cases


def beat_file():
    """Eight seconds of a stereo chord, tagged as a demo beat, as MP3."""
    path = Path(tempfile.mkdtemp(prefix="reverie-beat-")) / "demo-beat.mp3"
    left = "0.3*sin(2*PI*220*t)+0.2*sin(2*PI*331*t)+0.1*sin(2*PI*1047*t)"
    right = "0.3*sin(2*PI*220*t)+0.2*sin(2*PI*277*t)+0.1*sin(2*PI*880*t)"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"aevalsrc={left}|{right}:s=44100:d=8",
                    "-metadata", "title=Demo Beat", "-metadata", "artist=Kit Drummer", "-c:a", "libmp3lame", "-b:a", "192k", str(path)],
                   check=True)
    return path


# Renders the player's own graph (./loop.js) offline for twenty passes and a little more, and
# compares every rendered sample with the section's: a gap, a lost or added sample, or a jump at
# the boundary shows up as a mismatch or as a join steeper than anything inside the music.
MEASURE_LOOP = """async ([url, a, b]) => {
  const { loopFrames, sectionBuffer, startSource } = await import("/write/loop.js");
  const bytes = await (await fetch(url, { credentials: "same-origin" })).arrayBuffer();
  const probe = new OfflineAudioContext(2, 1, 44100);
  const buffer = await probe.decodeAudioData(bytes);
  const { first, end } = loopFrames(buffer, a, b);
  const length = end - first;
  const passes = 20;
  const offline = new OfflineAudioContext(buffer.numberOfChannels, passes * length + 64, buffer.sampleRate);
  const section = sectionBuffer(offline, buffer, first, end);
  startSource(offline, offline.destination, section, { loop: true });
  const rendered = await offline.startRendering();
  let mismatches = 0, loops = 0, joinMax = 0, insideMax = 0;
  for (let channel = 0; channel < rendered.numberOfChannels; channel += 1) {
    const out = rendered.getChannelData(channel), source = section.getChannelData(channel);
    for (let n = 0; n < rendered.length; n += 1) {
      if (out[n] !== source[n % length]) mismatches += 1;
      if (channel === 0 && n > 0 && n % length === 0 && out[n] === source[0]) loops += 1;
      if (n > 0) {
        const step = Math.abs(out[n] - out[n - 1]);
        if (n % length === 0) joinMax = Math.max(joinMax, step); else insideMax = Math.max(insideMax, step);
      }
    }
  }
  return { loops, mismatches, joinMax, insideMax, seconds: length / buffer.sampleRate,
           moved: [Math.abs(first / buffer.sampleRate - a), Math.abs(end / buffer.sampleRate - b)] };
}"""


# A signal from Tests/Shared/ab-loop-cases.json as an AudioBuffer, each sample made as Swift makes it.
SHARED_SIGNAL = """(signal) => {
  const channels = signal.samples ? signal.channels : signal.channels.length;
  const frames = signal.samples ? signal.samples.length / channels : signal.frames;
  const buffer = new AudioBuffer({ length: frames, numberOfChannels: channels, sampleRate: signal.sampleRate });
  for (let channel = 0; channel < channels; channel += 1) {
    const data = new Float32Array(frames);
    for (let frame = 0; frame < frames; frame += 1) {
      if (signal.samples) { data[frame] = signal.samples[frame * channels + channel]; continue; }
      let value = 0;
      for (const p of signal.channels[channel]) value += p.amplitude * Math.sin(2 * Math.PI * p.hz * frame / signal.sampleRate + p.phase);
      data[frame] = value;
    }
    buffer.copyToChannel(data, channel);
  }
  return buffer;
}"""


def test_the_browser_loop_answers_the_shared_loop_cases(server, page):
    """Web/write/loop.js against Tests/Shared/ab-loop-cases.json, which AudioRender's SongLoop (the
    server's rendered loop) runs in Swift: where A and B snap to, and the section's fade into A."""
    sign_in(server, page)
    shared = shared_cases("ab-loop-cases.json")
    mismatches = page.evaluate("""async (shared) => {
        const loop = await import('/write/loop.js');
        const signal = """ + SHARED_SIGNAL + """;
        const buffers = Object.fromEntries(Object.entries(shared.signals).map(([name, s]) => [name, signal(s)]));
        const wrong = [];
        if (loop.SNAP_RADIUS !== shared.snapRadiusSeconds) wrong.push(`the snap radius is ${loop.SNAP_RADIUS}`);
        if (loop.CROSSFADE !== shared.crossfadeSeconds) wrong.push(`the fade is ${loop.CROSSFADE}`);
        for (const c of shared.zeroCrossing) {
            const frame = loop.risingZeroCrossing(buffers[c.signal], c.near, c.radius);
            if (frame !== c.frame) wrong.push(`${c.name}: A at ${frame}, not ${c.frame}`);
        }
        for (const c of shared.bestMatch) {
            const frame = loop.bestMatch(buffers[c.signal], c.a, c.near, c.radius);
            if (frame !== c.frame) wrong.push(`${c.name}: B at ${frame}, not ${c.frame}`);
        }
        for (const c of shared.loops) {
            const buffer = buffers[c.signal], rate = buffer.sampleRate, channels = buffer.numberOfChannels;
            const { first, end } = loop.loopFrames(buffer, c.start / rate, c.end / rate);
            if (first !== c.a || end !== c.b) { wrong.push(`${c.name}: ${first}..<${end}, not ${c.a}..<${c.b}`); continue; }
            const section = loop.sectionBuffer(new OfflineAudioContext(channels, 1, rate), buffer, first, end);
            const interleaved = [];
            for (let frame = 0; frame < section.length; frame += 1) {
                for (let channel = 0; channel < channels; channel += 1) interleaved.push(section.getChannelData(channel)[frame]);
            }
            const head = interleaved.slice(0, c.head.length), tail = interleaved.slice(interleaved.length - c.tail.length);
            const off = (got, want) => got.length !== want.length || got.some((value, index) => Math.abs(value - want[index]) > 1e-6);
            if (off(head, c.head)) wrong.push(`${c.name}: head ${head}`);
            if (off(tail, c.tail)) wrong.push(`${c.name}: tail ${tail}`);
        }
        return wrong;
    }""", shared)
    assert len(shared["zeroCrossing"]) >= 8 and len(shared["loops"]) >= 6
    assert mismatches == []


def test_loop_the_chorus_while_writing(server, page):
    sign_in(server, page, "Write")
    page.get_by_role("button", name="New song").click()
    page.get_by_label("Title", exact=True).fill("Chorus Practice")
    lyrics = page.get_by_role("textbox", name="Lyrics")
    lyrics.fill("We keep on turning round")
    expect(page.locator("[data-save]")).to_have_text("Saved")

    page.get_by_role("button", name="Player: the song's tracks and loop").click()
    sheet = page.get_by_role("dialog", name="Player")
    expect(sheet.get_by_text("No tracks yet")).to_be_visible()
    sheet.locator("[data-upload]").set_input_files(str(beat_file()))
    track = sheet.locator(".track")
    expect(track).to_have_count(1)
    expect(track).to_contain_text("Demo Beat")
    expect(track).to_contain_text("Kit Drummer")
    mini = page.locator(".mini-player")
    expect(mini).to_contain_text("Demo Beat")

    # A at 2 s, B at 4 s (a handle dragged, then nudged), the loop on.
    sheet.get_by_label("A: loop start").fill("1.9")
    sheet.get_by_role("button", name="A 0.1 seconds later").click()
    # B cannot pass A: dragged before it, it stops 0.1 s after A.
    sheet.get_by_label("B: loop end").fill("1.5")
    expect(sheet.locator('[data-out="end"]')).to_have_text("0:02.1")
    sheet.get_by_label("B: loop end").fill("4.1")
    sheet.get_by_role("button", name="B 0.1 seconds earlier").click()
    expect(sheet.locator('[data-out="start"]')).to_have_text("0:02.0")
    expect(sheet.locator('[data-out="end"]')).to_have_text("0:04.0")
    sheet.get_by_label("Loop A–B").check()
    sheet.get_by_role("button", name="Play").click()
    expect(mini.locator("[data-loop-count]")).to_have_text("Loop 1")
    screenshot(page, "write-player-loop-sheet")

    # Close the sheet and write the verse while the chorus loops.
    sheet.get_by_role("button", name="Done").click()
    lyrics.press("Control+End")
    page.keyboard.type("\nThe verse goes in while the chorus comes back round again", delay=20)
    # Two more passes of the 2 s loop play in real time first.
    wait_until(page, "document.querySelector('[data-loop-count]').textContent === 'Loop 3'", timeout=2 * 2 + PATIENCE,
               message="the loop did not come round twice")
    # The visualizer draws real levels: the canvas has lit pixels.
    lit = page.evaluate("""() => { const c = document.querySelector('[data-visualizer]');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1; return n; }""")
    assert lit > 50, lit
    screenshot(page, "write-mini-player")
    expect(page.locator("[data-save]")).to_have_text("Saved")

    # The loop's boundary, measured from the audio graph: twenty passes, every sample in place.
    song = page.evaluate("location.pathname.split('/').pop()")
    tracks = page.evaluate(f"fetch('/api/compositions/{song}/tracks').then(r => r.json())")
    assert tracks[0]["loop"] == {"start": 2, "end": 4, "enabled": True}, tracks
    url = f"/api/compositions/{song}/tracks/{tracks[0]['id']}/audio"
    measured = page.evaluate(MEASURE_LOOP, [url, 2, 4])
    print("loop measured:", measured)
    assert measured["loops"] == 20 and measured["mismatches"] == 0, measured
    assert measured["joinMax"] <= measured["insideMax"], measured
    assert max(measured["moved"]) <= 0.005 and abs(measured["seconds"] - 2) <= 0.01, measured

    # Paused and opened again later: the loop points were saved with the song.
    mini.get_by_role("button", name="Pause").click()
    page.reload()
    page.get_by_role("button", name="Player: the song's tracks and loop").click()
    sheet = page.get_by_role("dialog", name="Player")
    expect(sheet.locator('[data-out="start"]')).to_have_text("0:02.0")
    expect(sheet.locator('[data-out="end"]')).to_have_text("0:04.0")
    expect(sheet.get_by_label("Loop A–B")).to_be_checked()

    # A slower practice speed keeps the loop (pitch kept on the server).
    sheet.get_by_label("Speed (pitch kept)").fill("2")
    expect(sheet.locator("[data-speed-out]")).to_have_text("0.75×")

    # Detached: the song has no track; the music stays in Listen.
    sheet.get_by_role("button", name="Detach Demo Beat").click()
    expect(sheet.get_by_text("No tracks yet")).to_be_visible()
    expect(page.locator(".mini-player")).to_be_hidden()
    expect(sheet.locator("[data-music] option", has_text="Demo Beat")).to_have_count(1)

    # Streaming services are a Plus feature still to come: the paywall card says so.
    sheet.get_by_role("button", name="From a streaming service").click()
    card = page.get_by_role("dialog", name="Reverie Plus")
    expect(card.get_by_text("Music integrations (streaming services beside your own files) are coming to Plus", exact=False)).to_be_visible()
    card.get_by_role("button", name="Not now").click()
    # So are online rhymes and the AI co-writer, from the editor.
    page.get_by_role("button", name="Online rhymes and AI ideas").click()
    expect(card.get_by_text("Online rhymes and the AI co-writer are coming to Plus", exact=False)).to_be_visible()
    expect(card.locator(".status.coming")).to_have_count(3)
    card.get_by_role("button", name="Not now").click()
    expect(card).to_be_hidden()

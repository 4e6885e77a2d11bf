// What the lock screen (Media Session) shows while Listen's music and speech players play side by
// side: the twin of Playback's LockScreenRule (Sources/Playback/LockScreenRule.swift), kept to the
// seed's two "was playing" flags and its order of conditions. Both run Tests/Shared/lock-screen-cases.json.
//
// A player is {loaded, playing}; flags are {musicWasPlaying, speechWasPlaying}.

export const EMPTY = Object.freeze({ loaded: false, playing: false });

function player({ loaded, playing }) {
  return { loaded: Boolean(loaded), playing: Boolean(playing && loaded) };
}

/** {shows: "nothing" | "music" | "speech" | "combined", flags} for the players now. */
export function update(musicState, speechState, flags) {
  const music = player(musicState), speech = player(speechState);
  if (music.playing && speech.playing) return { shows: "combined", flags: { musicWasPlaying: true, speechWasPlaying: true } };
  if (music.playing) return { shows: "music", flags: { musicWasPlaying: true, speechWasPlaying: false } };
  if (speech.playing) return { shows: "speech", flags: { musicWasPlaying: false, speechWasPlaying: true } };
  // Nothing plays: show what was playing last, as long as it is still loaded.
  const musicWas = Boolean(flags?.musicWasPlaying) && music.loaded;
  const speechWas = Boolean(flags?.speechWasPlaying) && speech.loaded;
  const kept = { musicWasPlaying: musicWas, speechWasPlaying: speechWas };
  if (musicWas && speechWas) return { shows: "combined", flags: kept };
  if (musicWas) return { shows: "music", flags: kept };
  if (speechWas) return { shows: "speech", flags: kept };
  if (speech.loaded) return { shows: "speech", flags: kept };
  if (music.loaded) return { shows: "music", flags: kept };
  return { shows: "nothing", flags: kept };
}

/** One headset or lock-screen play/pause press: {music, speech}, which should play afterwards. */
export function togglePress(musicState, speechState, flags) {
  const music = player(musicState), speech = player(speechState);
  if (music.playing || speech.playing) return { music: false, speech: false };
  const shows = update(music, speech, flags).shows;
  return { music: shows === "combined" || shows === "music", speech: shows === "combined" || shows === "speech" };
}

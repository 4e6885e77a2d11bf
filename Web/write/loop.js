// The song player's sound: a track decoded into memory and played through Web Audio, where an
// A–B loop is a buffer of exactly the section's samples that the audio thread repeats itself.
// Nothing on the page's thread takes part in the jump from B to A, so typing, saving and
// redrawing cannot delay it. A sits on a rising zero crossing and B where every channel's sample
// and slope best match A's (each moved at most 5 ms), and the section's last 10 ms fade into
// the music just before A, so the join from B to A is as smooth as the music itself (the same
// as the server's rendered loop: Sources/AudioRender/SongLoop.swift).

/** How far an end may move to reach a zero crossing, in seconds. */
export const SNAP_RADIUS = 0.005;
/** How long the section's end takes to turn into what comes before A, in seconds. */
export const CROSSFADE = 0.01;

function mix(buffer, frame) {
  let sum = 0;
  for (let channel = 0; channel < buffer.numberOfChannels; channel += 1) sum += buffer.getChannelData(channel)[frame];
  return sum;
}

/** The frame nearest `frame` (within `radius` frames) where the channels' sum rises through zero. */
export function risingZeroCrossing(buffer, frame, radius) {
  const last = buffer.length - 1;
  const start = Math.min(Math.max(frame, 1), Math.max(1, last));
  for (let distance = 0; distance <= radius; distance += 1) {
    for (const candidate of distance === 0 ? [start] : [start - distance, start + distance]) {
      if (candidate >= 1 && candidate <= last && mix(buffer, candidate - 1) < 0 && mix(buffer, candidate) >= 0) return candidate;
    }
  }
  return start;
}

/** The frame within `radius` of `frame` that frame `a` best follows on from (values and slopes). */
export function bestMatch(buffer, a, frame, radius) {
  const channels = Array.from({ length: buffer.numberOfChannels }, (_, channel) => buffer.getChannelData(channel));
  let best = frame, bestCost = Infinity;
  const from = Math.max(1, frame - radius), to = Math.min(buffer.length - 1, frame + radius);
  for (let candidate = from; candidate <= to; candidate += 1) {
    if (candidate <= a) continue;
    let cost = 0;
    for (const data of channels) {
      const value = data[candidate] - data[a];
      const slope = (data[candidate] - data[candidate - 1]) - (data[a] - data[a - 1]);
      cost += value * value + slope * slope;
    }
    if (cost < bestCost || (cost === bestCost && Math.abs(candidate - frame) < Math.abs(best - frame))) { best = candidate; bestCost = cost; }
  }
  return best;
}

/** The loop's first and last-plus-one frames for A and B in seconds of `buffer`, snapped. */
export function loopFrames(buffer, a, b) {
  const radius = Math.round(SNAP_RADIUS * buffer.sampleRate);
  const first = risingZeroCrossing(buffer, Math.round(a * buffer.sampleRate), radius);
  let end = first >= 1 ? bestMatch(buffer, first, Math.min(Math.round(b * buffer.sampleRate), buffer.length - 1), radius) : Math.round(b * buffer.sampleRate);
  if (end <= first) end = Math.min(buffer.length, Math.max(first + 1, Math.round(b * buffer.sampleRate)));
  return { first, end };
}

/**
 * A buffer holding frames first..<end of `buffer`, its last CROSSFADE seconds faded (a raised
 * cosine) into the frames just before `first`: looped whole, it repeats sample for sample and
 * runs from its end into its start as the song runs into A.
 */
export function sectionBuffer(context, buffer, first, end) {
  const section = context.createBuffer(buffer.numberOfChannels, end - first, buffer.sampleRate);
  const length = Math.min(Math.round(CROSSFADE * buffer.sampleRate), first, Math.floor((end - first) / 2));
  for (let channel = 0; channel < buffer.numberOfChannels; channel += 1) {
    const source = buffer.getChannelData(channel);
    const data = source.slice(first, end);
    for (let index = 0; length > 1 && index < length; index += 1) {
      const weight = 0.5 - 0.5 * Math.cos((Math.PI * index) / (length - 1));
      const at = data.length - length + index;
      data[at] = data[at] * (1 - weight) + source[first - length + index] * weight;
    }
    section.copyToChannel(data, channel);
  }
  return section;
}

/**
 * Starts `buffer` into `destination` at `when`: the whole track from `offset` seconds, or, with a
 * loop, the section from `offset` seconds into it, round and round. Returns the source node.
 */
export function startSource(context, destination, buffer, { loop = false, offset = 0, when = 0 } = {}) {
  const source = context.createBufferSource();
  source.buffer = buffer;
  source.loop = loop;  // the whole (section) buffer: loopStart and loopEnd stay 0
  source.connect(destination);
  source.start(when, Math.max(0, Math.min(offset, buffer.duration)));
  return source;
}

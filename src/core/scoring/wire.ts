/**
 * How scorer-protocol messages are encoded on the wire (both directions of the Node side: the
 * client in ./client.ts and the built-in scorer process). Pure; never imports `vscode`.
 *
 * `asciiJsonEncoder` is vscode-jsonrpc's default `application/json` encoder (`JSON.stringify`, then
 * UTF-8) except that every non-ASCII UTF-16 code unit is written as a JSON `\uXXXX` escape. The
 * bytes parse to exactly the same value (RFC 8259 §7; any JSON parser), but the message is pure
 * ASCII, which V8 keeps as a one-byte string: encoding it (`Buffer.from`) and decoding it on the
 * other side (`buffer.toString('utf8')`, Python's `bytes.decode`) take the fast ASCII paths. Real
 * rollouts are almost all ASCII with a few `…`, `✓` or box-drawing characters, and one such character
 * is enough to make V8 hold the whole 2 MiB request as a two-byte string: measured by
 * bench/scorer.bench.ts (the parts table).
 */
import type { MessageWriterOptions } from 'vscode-jsonrpc/node';

const NON_ASCII = /[^\x00-\x7f]/g;

/**
 * `JSON.stringify(value)` with every character outside ASCII written as `\uXXXX` (each UTF-16 code
 * unit, so a character outside the BMP becomes its escaped surrogate pair). `JSON.parse` of the
 * result equals `JSON.parse(JSON.stringify(value))`. Throws what `JSON.stringify` throws (cycles, BigInt).
 */
export function asciiJson(value: unknown): string {
  const s = JSON.stringify(value, undefined, 0);
  // A regex scan finds the (few) non-ASCII characters fastest; slices in between are copied once.
  NON_ASCII.lastIndex = 0;
  let m = NON_ASCII.exec(s);
  if (!m) return s;
  let out = '';
  let last = 0;
  for (; m; m = NON_ASCII.exec(s)) {
    out += s.slice(last, m.index) + '\\u' + s.charCodeAt(m.index).toString(16).padStart(4, '0');
    last = m.index + 1;
  }
  return out + s.slice(last);
}

/** vscode-jsonrpc writer options that send every message as ASCII-only JSON (see the module comment). */
export const ASCII_JSON_WRITER: MessageWriterOptions = {
  charset: 'utf-8',
  contentTypeEncoder: {
    name: 'application/json',
    encode: (msg) => {
      try {
        return Promise.resolve(Buffer.from(asciiJson(msg), 'latin1'));
      } catch (e) {
        return Promise.reject(e);
      }
    },
  },
};

/**
 * stdout and stderr of a replayed command, kept apart.
 *
 * Docker's exec stream (Tty off) carries the two streams as separate frames. Each is decoded with
 * its own streaming UTF-8 decoder, so a character whose bytes are split by a write to the other
 * stream decodes whole (merged inside the container, as `2>&1`, its halves are separated by the
 * other stream's bytes and become two U+FFFD). The text in arrival order is what the user sees
 * live; the order between the two streams is not kept by the engine (it reads them concurrently:
 * `echo a; echo b >&2; echo c` arrives as a c b in most runs), so for the comparison the two are
 * interleaved line by line the way the recording shows them (`mergeLike`), each stream's own order
 * always kept.
 */

/** Stream numbers as in Docker's multiplexed frames, less one: 0 stdout, 1 stderr. */
export type StreamNo = 0 | 1;

/** The streams of one command: both texts and the arrival-order text. */
export interface StreamTexts {
  stdout: string;
  stderr: string;
}

/**
 * Collects the two streams of one command, each decoded on its own, up to `capBytes` bytes over
 * both (what passes the cap is decoded — a caller may look for a marker in it — but not kept).
 * Appending is amortised O(chunk): chunks go into arrays, joined once at the end.
 */
export class StreamCollector {
  private readonly decoders = [new TextDecoder('utf-8'), new TextDecoder('utf-8')];
  private readonly chunks: Array<{ s: StreamNo; t: string }> = [];
  /** Characters kept per stream. */
  private readonly kept = [0, 0];
  /** Bytes received over both streams (also past the cap). */
  bytes = 0;
  private keptBytes = 0;

  constructor(readonly capBytes: number) {}

  /** True once more than `capBytes` bytes arrived. */
  get overCap(): boolean {
    return this.bytes > this.capBytes;
  }

  /**
   * Takes one chunk of stream `s`.
   * @returns the text it decoded to (all of it, also past the cap); `kept` is the part kept
   */
  push(s: StreamNo, b: Uint8Array): { text: string; kept: string } {
    this.bytes += b.length;
    const text = this.decoders[s].decode(b, { stream: true });
    let kept = '';
    if (this.keptBytes < this.capBytes && text) {
      const room = this.capBytes - this.keptBytes;
      if (b.length <= room) {
        kept = text;
        this.keptBytes += b.length;
      } else {
        kept = Buffer.from(text).subarray(0, room).toString('utf8').replace(/\uFFFD$/, '');
        this.keptBytes = this.capBytes;
      }
      this.chunks.push({ s, t: kept });
      this.kept[s] += kept.length;
    }
    return { text, kept };
  }

  /** Ends both decoders (an incomplete character at the end becomes U+FFFD). */
  end(): void {
    for (const s of [0, 1] as const) {
      const t = this.decoders[s].decode();
      if (t && this.keptBytes < this.capBytes) {
        this.chunks.push({ s, t });
        this.kept[s] += t.length;
      }
    }
  }

  /**
   * The kept text, in arrival order and per stream; `upTo` cuts each stream after that many of
   * its characters (a marker's position), e.g. `[n, Infinity]`.
   */
  texts(upTo: readonly [number, number] = [Infinity, Infinity]): StreamTexts & { arrival: string } {
    const all: string[] = [];
    const per: [string[], string[]] = [[], []];
    const at = [0, 0];
    for (const { s, t } of this.chunks) {
      const left = upTo[s] - at[s];
      if (left <= 0) continue;
      const part = t.length > left ? t.slice(0, left) : t;
      at[s] += part.length;
      all.push(part);
      per[s].push(part);
    }
    return { arrival: all.join(''), stdout: per[0].join(''), stderr: per[1].join('') };
  }
}

/** Lines of a text, each with its line break (the last one may have none). */
function lines(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', from)) {
    out.push(text.slice(from, i + 1));
    from = i + 1;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/**
 * One text of stdout and stderr for the comparison: their lines interleaved the way `recorded`
 * (one merged stream, as the agent's harness saw it) shows them — at each recorded line, the
 * stream whose next line it is goes first — each stream's own order kept. Recorded lines neither
 * stream has next are passed over; what is left once the recording ends follows, stdout's rest
 * first. Without stderr, or when the recording shows none of the stderr lines, the arrival text.
 * Linear in the sizes.
 */
export function mergeLike(recorded: string, streams: StreamTexts & { arrival: string }): string {
  if (!streams.stderr || !streams.stdout) return streams.arrival;
  const rec = lines(recorded.replace(/\r\n/g, '\n'));
  const out = lines(streams.stdout);
  const err = lines(streams.stderr);
  const bare = (l: string | undefined) => (l === undefined ? undefined : l.replace(/\r?\n$/, ''));
  const merged: string[] = [];
  let i = 0;
  let j = 0;
  let guided = false;
  for (const r0 of rec) {
    if (i >= out.length && j >= err.length) break;
    const r = bare(r0);
    if (i < out.length && bare(out[i]) === r) merged.push(out[i++]);
    else if (j < err.length && bare(err[j]) === r) {
      merged.push(err[j++]);
      guided = true;
    }
  }
  if (!guided) return streams.arrival;
  // Past the end of the recording: the rest of stdout, then the rest of stderr.
  return merged.join('') + out.slice(i).join('') + err.slice(j).join('');
}

/**
 * Generates big asciicast v2 recordings for bench/cast.bench.ts and the cast e2e: a shell session
 * that prints coloured lines (`[<seconds>] line <n> …`, the time it was printed in the text so a
 * screen tells where in the recording it is), clears the screen every 5,000 events, and has a marker
 * (`m`, "step N") every 20,000 events. An event every 5 ms of recording time, ~70 bytes an event
 * (like the 100 MB, 1.4 M-event recording of the issue). Deterministic: a file already there with
 * the asked size is reused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A generated cast: path, size in bytes, events, recording seconds. */
export interface GeneratedCast {
  file: string;
  size: number;
  events: number;
  duration: number;
}

/** Seconds between two events. */
export const GEN_EVENT_SECONDS = 0.005;

/** The text of event `n` (0-based) of a generated cast, without the line's JSON framing. */
export function genEventLine(n: number): string {
  const t = (n + 1) * GEN_EVENT_SECONDS;
  if (n % 20000 === 19999) return JSON.stringify([Number(t.toFixed(6)), 'm', `step ${(n + 1) / 20000}`]);
  const clear = n % 5000 === 0 ? '\x1b[2J\x1b[H' : '';
  const colour = 31 + (n % 7);
  const text = `${clear}\x1b[${colour}m[${t.toFixed(3)}]\x1b[0m line ${n} ${'abcdefghij'.slice(0, n % 10)}\r\n`;
  return JSON.stringify([Number(t.toFixed(6)), 'o', text]);
}

/** Writes (or reuses) a v2 cast of at least `bytes` bytes at `file`. */
export function genCast(file: string, bytes: number): GeneratedCast {
  const meta = `${file}.meta.json`;
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8')) as GeneratedCast;
    if (m.size === fs.statSync(file).size && m.size >= bytes) return { ...m, file };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let size = 0;
  let n = 0;
  const head = JSON.stringify({ version: 2, width: 120, height: 32, timestamp: 1700000000, title: 'generated', env: { TERM: 'xterm-256color', SHELL: '/bin/bash' } }) + '\n';
  fs.writeSync(fd, head);
  size += Buffer.byteLength(head);
  const parts: string[] = [];
  let pending = 0;
  while (size + pending < bytes) {
    const line = genEventLine(n++) + '\n';
    parts.push(line);
    pending += line.length; // ASCII only
    if (pending >= 4 * 1024 * 1024) {
      fs.writeSync(fd, parts.join(''));
      size += pending;
      parts.length = 0;
      pending = 0;
    }
  }
  if (parts.length) fs.writeSync(fd, parts.join(''));
  size += pending;
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  const out: GeneratedCast = { file, size, events: n, duration: Number((n * GEN_EVENT_SECONDS).toFixed(6)) };
  fs.writeFileSync(meta, JSON.stringify(out));
  return out;
}

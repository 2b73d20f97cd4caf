// Cases for escapes.test.ts (run inside the watchdog's worker): hostile escape counts fed to the
// replay normaliser (@xterm/headless) and to the host's cast view (what the webview player plays).
import { normalizeOutput } from '../../src/core/replay/normalize';
import { castView } from '../../src/host/castView';
import { parseAsciicast } from '../../src/core/formats/asciicast';

/** The absurd CSI sequences of issue 18 item 1, and friends of the same class. */
export const HOSTILE = ['\x1b[2147483647S', '\x1b[2147483647T', '\x1b[2147483647L', '\x1b[2147483647M', 'x\x1b[2147483647b', '\x1b[99999999999999999999@', '\x1b[2147483647X', '\x1b[2147483647P', '\x1b[2147483647 @'];

/** Normalises recorded output holding `seq` between good text, `times` times. */
export async function normalizeHostile(seq: string, times: number): Promise<string> {
  const raw = 'good before\n' + Array.from({ length: times }, (_, i) => `line ${i}${seq}\n`).join('') + 'good after\n';
  return (await normalizeOutput(raw)).text;
}

/** A cast (v2) with `seq` split between output events, header size `cols`×`rows`; returns what the player gets. */
export function castHostile(seq: string, times: number, cols = 80, rows = 24): { note: string | null; cols: number; rows: number; out: string } {
  const lines = [JSON.stringify({ version: 2, width: cols, height: rows })];
  let t = 0;
  for (let i = 0; i < times; i++) {
    const cut = Math.floor(seq.length / 2);
    lines.push(JSON.stringify([(t += 0.01), 'o', `good ${i} ${seq.slice(0, cut)}`]));
    lines.push(JSON.stringify([(t += 0.01), 'o', `${seq.slice(cut)} after\r\n`]));
  }
  const parsed = parseAsciicast(lines.join('\n') + '\n', { lenient: true });
  const { cast, note } = castView(parsed);
  return { note, cols: cast.cols, rows: cast.rows, out: cast.events.filter((e) => e[1] === 'o').map((e) => e[2]).join('') };
}

/** A long line written over `times` times by carriage returns (a progress bar gone wrong), past xterm's size limit. */
export async function normalizeCrFlood(times: number): Promise<{ length: number; head: string }> {
  const text = (await normalizeOutput('x'.repeat(1_000_000) + '\ra'.repeat(times) + '\ngood after\n')).text;
  return { length: text.length, head: text.slice(0, 3) };
}

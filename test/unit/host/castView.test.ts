/**
 * The host side of the terminal player: `castView` / `castSize` (src/host/castView.ts),
 * `readCastMessage` (src/host/castFile.ts: size limit, core parseAsciicast, errors) and the
 * protocol guards for `loadCast` / `cast`. Real recordings from ../shared/samples; broken and huge
 * ones are generated from them.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readCastMessage } from '../../../src/host/castFile';
import { castSize, castView } from '../../../src/host/castView';
import { MAX_SCREEN_COLS, MAX_SCREEN_ROWS } from '../../../src/core/escapes';
import { isHostMessage, isPersistedState, isWebviewMessage } from '../../../src/shared/protocol';
import { MAX_TERM_COLS, MAX_TERM_ROWS } from '../../../src/shared/castProtocol';
import { sample, tmpDir } from '../samples';

const TB1_CAST = 'tb1/lcbpro-1983a_with-agent-logs/sessions/agent.cast';
const V3_CAST = 'asciicast/asciinema-tests_full-v3.cast';

/** The event lines of a v2 cast, straight from the file. */
function v2Events(file: string): [number, string, string][] {
  return fs.readFileSync(file, 'utf8').split('\n').slice(1).filter((l) => l.trim()).map((l) => JSON.parse(l));
}

describe('host: terminal recordings for the player', () => {
  it('reads a real TB1 agent.cast: size from the header, every event in order, duration = last event', async () => {
    const file = sample(TB1_CAST);
    const header = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]);
    const raw = v2Events(file);
    const msg = await readCastMessage(3, 'r-id', file);
    assert.equal(msg.error, null);
    assert.equal(msg.note, null);
    assert.ok(msg.cast);
    assert.deepEqual([msg.cast.cols, msg.cast.rows], [header.width, header.height]);
    assert.deepEqual(msg.cast.events, raw);
    assert.equal(msg.cast.duration, raw[raw.length - 1][0]);
    assert.equal(msg.cast.truncatedAt, null);
    assert.deepEqual([msg.rolloutIndex, msg.rolloutId, msg.path], [3, 'r-id', file]);
    assert.ok(isHostMessage(msg), 'the message passes the webview guard');
  });

  it('reads a v3 cast (relative times made absolute, size from term.cols/rows, resize events kept)', async () => {
    const file = sample(V3_CAST);
    const header = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]);
    const msg = await readCastMessage(0, 'x', file);
    assert.ok(msg.cast, msg.error ?? '');
    assert.deepEqual([msg.cast.cols, msg.cast.rows], [header.term.cols, header.term.rows]);
    const intervals = fs.readFileSync(file, 'utf8').split('\n').slice(1).filter((l) => l.trim()).map((l) => JSON.parse(l)[0] as number);
    const total = intervals.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(msg.cast.duration - total) < 1e-5, `${msg.cast.duration} vs ${total}`);
    assert.ok(msg.cast.events.some(([, code, data]) => code === 'r' && /^\d+x\d+$/.test(data)));
  });

  it('cuts a long recording at the character limit and says where', async () => {
    const raw = v2Events(sample(TB1_CAST));
    const parsedLike = { header: { cols: 160, rows: 40 }, events: raw.map(([time, code, data]) => ({ time, code, data })) };
    let chars = 0;
    const fits = raw.findIndex(([, , d]) => (chars += d.length) > 300);
    const { cast, note } = castView(parsedLike, 300);
    assert.equal(cast.events.length, fits);
    assert.equal(cast.truncatedAt, raw[fits - 1][0]);
    assert.equal(cast.duration, raw[fits - 1][0]);
    assert.match(note ?? '', /first 300 B of terminal data, up to 0:0\d of 0:13/);
    // A single event larger than the limit is kept in part rather than dropped.
    const one = castView({ header: {}, events: [{ time: 0.5, code: 'o', data: 'x'.repeat(1000) }] }, 100);
    assert.equal(one.cast.events[0][2].length, 100);
    assert.equal(one.cast.truncatedAt, 0.5);
  });

  it('drops unknown event codes and never lets time run backwards', () => {
    const { cast } = castView({
      header: { width: 100, height: 30 },
      events: [
        { time: 1, code: 'o', data: 'a' },
        { time: 0.5, code: 'o', data: 'b' },
        { time: 2, code: 'z', data: 'c' },
        { time: Number.NaN, code: 'm', data: 'mark' },
        { time: 3, code: 'x', data: '0' },
      ],
    });
    assert.deepEqual(cast.events, [[1, 'o', 'a'], [1, 'o', 'b'], [1, 'm', 'mark'], [3, 'x', '0']]);
    assert.deepEqual([cast.cols, cast.rows], [100, 30]);
  });

  it('finds the terminal size in any header shape, 80×24 when none', () => {
    assert.deepEqual(castSize({ cols: 120, rows: 33, width: 1, height: 1 }), { cols: 120, rows: 33 });
    assert.deepEqual(castSize({ width: 90, height: 20 }), { cols: 90, rows: 20 });
    assert.deepEqual(castSize({ term: { cols: 70, rows: 10 } }), { cols: 70, rows: 10 });
    assert.deepEqual(castSize({ cols: -3, rows: 1e9 }), { cols: 80, rows: 200 });
    assert.deepEqual(castSize(null), { cols: 80, rows: 24 });
  });

  it('turns a missing, oversized, truncated or garbage recording into an error or a note, never a throw', async () => {
    const dir = tmpDir('ti-cast-');
    const missing = await readCastMessage(0, 'r', path.join(dir, 'nope.cast'));
    assert.equal(missing.cast, null);
    assert.match(missing.error ?? '', /does not exist/);

    const big = path.join(dir, 'big.cast');
    fs.copyFileSync(sample(TB1_CAST), big);
    const size = fs.statSync(big).size;
    const over = await readCastMessage(0, 'r', big, { maxFileBytes: size - 1, maxChars: 1e9 });
    assert.equal(over.cast, null);
    assert.match(over.error ?? '', /recordings up to/);

    // A run killed mid-write: the last line is cut in half. The rest plays, with a note.
    const text = fs.readFileSync(sample(TB1_CAST), 'utf8').trimEnd();
    const cut = path.join(dir, 'cut.cast');
    fs.writeFileSync(cut, text.slice(0, text.length - 15));
    const partial = await readCastMessage(0, 'r', cut);
    assert.ok(partial.cast, partial.error ?? '');
    assert.equal(partial.cast.events.length, v2Events(sample(TB1_CAST)).length - 1);
    assert.match(partial.note ?? '', /1 damaged event line was left out/);

    const garbage = path.join(dir, 'garbage.cast');
    fs.writeFileSync(garbage, Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x7b, 0x0a]));
    const bad = await readCastMessage(0, 'r', garbage);
    assert.equal(bad.cast, null);
    assert.ok(bad.error && bad.error.length > 0);

    const folder = await readCastMessage(0, 'r', dir);
    assert.equal(folder.cast, null);
    assert.match(folder.error ?? '', /not a file/);
  });

  it('guards: loadCast and cast messages, player settings in persisted state', () => {
    assert.ok(isWebviewMessage({ type: 'loadCast', rolloutIndex: 0 }));
    assert.ok(!isWebviewMessage({ type: 'loadCast', rolloutIndex: -1 }));
    assert.ok(!isWebviewMessage({ type: 'loadCast' }));
    const ok = { type: 'cast', rolloutIndex: 0, rolloutId: 'r', path: '/a.cast', cast: null, error: 'x', note: null };
    assert.ok(isHostMessage(ok));
    assert.ok(!isHostMessage({ ...ok, rolloutId: 3 }));
    assert.ok(!isHostMessage({ ...ok, cast: { cols: 80, rows: 24, duration: 'long', title: null, events: [], truncatedAt: null } }));
    assert.ok(isHostMessage({ ...ok, error: null, cast: { cols: 80, rows: 24, duration: 1, title: null, events: [], truncatedAt: null } }));
    const st = { rolloutIndex: 0, rolloutId: null, selectedStep: null, expanded: [] };
    assert.ok(isPersistedState(st));
    assert.ok(isPersistedState({ ...st, playerSpeed: 4, playerCollapsed: true, playerHeight: 0.5 }));
    assert.ok(!isPersistedState({ ...st, playerSpeed: 3 }));
    assert.ok(!isPersistedState({ ...st, playerHeight: 2 }));
    assert.ok(!isPersistedState({ ...st, playerCollapsed: 'yes' }));
  });
});

describe('player size limits', () => {
  it("the webview's MAX_TERM_* are core's MAX_SCREEN_* (the loader's warning and the player's clamp agree)", () => {
    assert.deepEqual([MAX_TERM_COLS, MAX_TERM_ROWS], [MAX_SCREEN_COLS, MAX_SCREEN_ROWS]);
  });
});

describe('openUrl (OSC 8 links of a recording)', () => {
  it('accepts http, https and mailto URLs only, of bounded length', () => {
    for (const url of ['https://example.com/x', 'http://127.0.0.1:8080/', 'mailto:a@b.c']) assert.ok(isWebviewMessage({ type: 'openUrl', url }), url);
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'command:workbench.action.terminal.new', 'vscode://x', 'data:text/html,hi', '', 'https://' + 'a'.repeat(5000), 'https://exa mple.com']) {
      assert.equal(isWebviewMessage({ type: 'openUrl', url }), false, url);
    }
    assert.equal(isWebviewMessage({ type: 'openUrl', url: 3 }), false);
  });
});

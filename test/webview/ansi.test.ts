/**
 * The webview's ANSI parser (webview/ansi.ts) and text helpers (webview/format.ts): pure, so they
 * run under Node here; the rendering of their output is covered in timeline.test.ts.
 */
import * as assert from 'node:assert/strict';
import { cssColor, parseAnsi, stripAnsi, styleClasses, xtermRgb } from '../../src/shared/ansi';
import { clampText, formatDuration, pairActions } from '../../webview/format';

const text = (lines: ReturnType<typeof parseAnsi>) => lines.map((l) => l.map((s) => s.text).join(''));

describe('webview/ansi', () => {
  it('splits lines and keeps plain text in one span', () => {
    const lines = parseAnsi('a\nbc\r\nd');
    assert.deepEqual(text(lines), ['a', 'bc', 'd']);
    assert.deepEqual(lines[1], [{ text: 'bc', style: null }]);
  });

  it('parses SGR colours and attributes, and resets', () => {
    const [line] = parseAnsi('x\x1b[31mred\x1b[1mbold\x1b[22;39m plain\x1b[92mhi\x1b[0m');
    assert.deepEqual(line.map((s) => s.text), ['x', 'red', 'bold', ' plain', 'hi']);
    assert.equal(styleClasses(line[1].style!), 'ansi-red');
    assert.equal(styleClasses(line[2].style!), 'ansi-red ansi-bold');
    assert.equal(line[3].style, null);
    assert.equal(styleClasses(line[4].style!), 'ansi-bright-green');
  });

  it('reads 256-colour and RGB forms, with ; and : separators', () => {
    const [line] = parseAnsi('\x1b[38;5;208ma\x1b[48;2;1;2;3mb\x1b[0m\x1b[38:2::9:8:7mc\x1b[38:5:1md');
    assert.deepEqual(line[0].style!.fg, { kind: 'index', n: 208 });
    assert.equal(cssColor(line[0].style!.fg!), 'rgb(255, 135, 0)');
    assert.deepEqual(line[1].style!.bg, { kind: 'rgb', r: 1, g: 2, b: 3 });
    assert.deepEqual(line[2].style!.fg, { kind: 'rgb', r: 9, g: 8, b: 7 });
    assert.equal(styleClasses(line[3].style!), 'ansi-red', 'palette 0–15 use the theme colours');
    assert.deepEqual(xtermRgb(232), { r: 8, g: 8, b: 8 });
    assert.deepEqual(xtermRgb(16), { r: 0, g: 0, b: 0 });
  });

  it('drops cursor moves, OSC titles and charset switches, and keeps what follows', () => {
    assert.deepEqual(stripAnsi('\x1b]0;title\x07\x1b[2K\x1b[1Gdone \x1b(Bok\x1b[?25l'), 'done ok');
    assert.deepEqual(stripAnsi('a\x07b\x08c\x00d'), 'abcd');
  });

  it('redraws a line after a bare carriage return (progress bars)', () => {
    assert.deepEqual(text(parseAnsi('10%\r50%\r100%\nnext')), ['100%', 'next']);
    assert.deepEqual(text(parseAnsi('kept\r\r\nnext\r')), ['kept', 'next']);
  });

  it('leaves markup alone (it is text to the renderer)', () => {
    assert.deepEqual(text(parseAnsi('<script>alert(1)</script>')), ['<script>alert(1)</script>']);
  });
});

describe('webview/format', () => {
  it('formats durations', () => {
    assert.equal(formatDuration(0.25), '250 ms');
    assert.equal(formatDuration(2.14), '2.1 s');
    assert.equal(formatDuration(185), '3m 05s');
    assert.equal(formatDuration(3720), '1h 02m');
  });

  it('clamps long texts by lines and characters', () => {
    assert.deepEqual(clampText('a\nb\nc', 2, 100), { text: 'a\nb', cut: true });
    assert.deepEqual(clampText('a\nb', 2, 100), { text: 'a\nb', cut: false });
    assert.deepEqual(clampText('abcdef', 5, 3), { text: 'abc', cut: true });
  });

  it('pairs actions with observations by call id, else by position', () => {
    const a = (callId: string | null) => ({ kind: 'shell' as const, command: 'x', tool: null, callId });
    const o = (callId: string | null, output: string) => ({ callId, output, exitCode: null, truncated: false });
    const linked = pairActions({ actions: [a('1'), a('2')], observations: [o('2', 'two'), o('1', 'one'), o('9', 'orphan')] });
    assert.deepEqual(linked.map((p) => p.observations.map((x) => x.output)), [['one'], ['two'], ['orphan']]);
    assert.equal(linked[2].action, null);
    const positional = pairActions({ actions: [a(null), a(null)], observations: [o(null, 'p'), o(null, 'q')] });
    assert.deepEqual(positional.map((p) => p.observations.map((x) => x.output)), [['p'], ['q']]);
  });
});

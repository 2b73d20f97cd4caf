/**
 * The player's pure helpers (webview/cast.ts): events and steps by time, the terminal operations a
 * seek performs, clock text. The player itself is covered in cast-player.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { eventsUpTo, formatClock, parseResize, stepAtTime, stepMarks, termOps } from '../../webview/cast';
import type { CastEventView } from '../../src/shared/castProtocol';
import { sample } from '../unit/samples';

const TB1_CAST = 'tb1/lcbpro-1983a_with-agent-logs/sessions/agent.cast';

function castEvents(rel: string): CastEventView[] {
  return fs.readFileSync(sample(rel), 'utf8').split('\n').slice(1).filter((l) => l.trim()).map((l) => JSON.parse(l));
}

describe('webview/cast', () => {
  const events = castEvents(TB1_CAST);

  it('counts the events at or before a time', () => {
    assert.equal(eventsUpTo(events, -1), 0);
    assert.equal(eventsUpTo(events, 0), 0);
    assert.equal(eventsUpTo(events, events[0][0]), 1);
    assert.equal(eventsUpTo(events, events[3][0] - 1e-9), 3);
    assert.equal(eventsUpTo(events, 1e9), events.length);
    assert.equal(eventsUpTo([], 5), 0);
  });

  it('maps a time to the step running then (steps without castTime are never chosen)', () => {
    const marks = stepMarks([
      { index: 0, castTime: 0 },
      { index: 1, castTime: 0.78 },
      { index: 2, castTime: 6.34 },
      { index: 3, castTime: null },
      { index: 4 },
      { index: 5, castTime: 13.6 },
      { index: 6, castTime: 13.6 },
    ]);
    assert.deepEqual(marks.map((m) => m.index), [0, 1, 2, 5, 6]);
    assert.equal(stepAtTime(marks, -1), null);
    assert.equal(stepAtTime(marks, 0), 0);
    assert.equal(stepAtTime(marks, 0.7799999), 1, 'a seek to a step time (float noise) lands on the step');
    assert.equal(stepAtTime(marks, 6), 1);
    assert.equal(stepAtTime(marks, 13), 2);
    assert.equal(stepAtTime(marks, 13.6), 6);
    assert.equal(stepAtTime([], 3), null);
    // Unsorted castTimes are sorted.
    assert.deepEqual(stepMarks([{ index: 0, castTime: 5 }, { index: 1, castTime: 2 }]).map((m) => m.index), [1, 0]);
  });

  it('turns a range of events into writes and resizes, in order', () => {
    const ops = termOps(
      [
        [0, 'o', 'a'],
        [0.1, 'i', 'typed'],
        [0.2, 'o', 'b'],
        [0.3, 'r', '100x30'],
        [0.4, 'm', 'marker'],
        [0.5, 'o', 'c'],
        [0.6, 'r', 'nonsense'],
        [0.7, 'x', '0'],
      ],
      0,
      8,
    );
    assert.deepEqual(ops, [
      { kind: 'write', data: 'ab' },
      { kind: 'resize', cols: 100, rows: 30 },
      { kind: 'write', data: 'c' },
    ]);
    const all = termOps(events, 0, events.length);
    assert.equal(all.length, 1);
    assert.equal(all[0].kind === 'write' && all[0].data, events.filter((e) => e[1] === 'o').map((e) => e[2]).join(''));
  });

  it('reads resize data and formats clock times', () => {
    assert.deepEqual(parseResize('80x24'), { cols: 80, rows: 24 });
    assert.deepEqual(parseResize(' 120 x 40 '), { cols: 120, rows: 40 });
    assert.equal(parseResize('0x24'), null);
    assert.deepEqual(parseResize('99999x2'), { cols: 500, rows: 2 });
    assert.equal(parseResize('wide'), null);
    assert.equal(formatClock(0), '0:00.0');
    assert.equal(formatClock(6.34082), '0:06.3');
    assert.equal(formatClock(75.05), '1:15.0');
    assert.equal(formatClock(3723.9, false), '1:02:03');
  });
});

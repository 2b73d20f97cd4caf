/** The hover of a step score says what the built-in rules are good for and what not; other scorers' hovers do not. */
import * as assert from 'node:assert/strict';
import { BUILTIN_SCORER_SCOPE, scoreTitle } from '../../../webview/scores';

describe('webview/scores: the hover of a built-in score', () => {
  const s = { index: 1, value: 0.5, label: 'neutral' as const, explanation: 'no signal (exit code unknown, no error text)' };
  it('names what the rules find and that they do not judge reasoning', () => {
    const t = scoreTitle(s, [0, 1], { name: 'builtin', version: '1.4.0', model: null });
    assert.ok(t.includes(BUILTIN_SCORER_SCOPE));
    assert.match(t, /good at finding failed commands/);
    assert.match(t, /Not a judge of reasoning/);
    assert.match(t, /returned without an error scores 0\.65/);
    assert.match(t, /nothing to judge .* 0\.50/);
  });
  it('says nothing of the rules for another scorer', () => {
    const t = scoreTitle(s, [0, 1], { name: 'ti-scorer', version: '0.1', model: 'Qwen' });
    assert.doesNotMatch(t, /Built-in rules/);
  });
});

// The Team view's Sandbox row says what happens to commands in plain words: no engine name
// alone, no "asks less" (issue 35).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sandboxWords } from '../../src/vscode/views/sandbox-words';

test('the Sandbox row says what happens to the agents\' commands', () => {
  assert.equal(sandboxWords({ active: true, autoAllow: true, mode: 'auto', missing: [] }), 'on: commands run isolated');
  assert.equal(sandboxWords({ active: true, autoAllow: false, mode: 'auto', missing: [] }), 'on: commands run isolated');
  assert.equal(sandboxWords({ active: false, autoAllow: true, mode: 'off', missing: [] }), 'off: commands run unisolated');
  assert.equal(sandboxWords({ active: false, autoAllow: true, mode: 'auto', missing: ['bubblewrap'] }), 'not installed (bubblewrap): commands run unisolated');
  assert.equal(sandboxWords({ active: false, autoAllow: true, mode: 'required', missing: ['bubblewrap'] }), 'not installed (bubblewrap): commands are refused');
  for (const r of [true, false]) assert.doesNotMatch(sandboxWords({ active: r, autoAllow: true, mode: 'auto', missing: [] }), /asks less|^bubblewrap/);
});

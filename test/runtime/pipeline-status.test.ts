// A pipeline's real exit status reaches the model (bash runs with `set -o pipefail`,
// src/core/exec/shell.ts): `npm test | tail` must not report tail's 0 for failing tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness } from './harness';

/** The tool_result blocks of the lead's last request, as sent. */
function lastToolResults(h: { api: { requests(agent: string): Array<{ body: { messages: unknown[] } }> } }): Array<{ content: unknown; is_error?: boolean }> {
  const last = h.api.requests('lead').at(-1)!;
  const user = (last.body.messages as Array<{ role: string; content: unknown }>).at(-1)!;
  return (user.content as Array<{ type: string; content: unknown; is_error?: boolean }>).filter((b) => b.type === 'tool_result');
}

test('a failing command piped into tail is reported with its own exit status, not tail\'s', async (t) => {
  const h = await harness(t);
  h.api.script('lead',
    reply(toolUse('bash', { command: '(echo "1 test failed"; exit 1) | tail -n 1' }), toolUse('bash', { command: 'echo fine | tail -n 1' })),
    'Done.',
  );
  await h.rt.askLead('Run the tests.');
  const [failing, passing] = lastToolResults(h);
  assert.match(JSON.stringify(failing!.content), /1 test failed.*Exit code: 1/s);
  assert.equal(failing!.is_error, true);
  assert.match(JSON.stringify(passing!.content), /fine.*Exit code: 0/s);
  assert.notEqual(passing!.is_error, true);
});

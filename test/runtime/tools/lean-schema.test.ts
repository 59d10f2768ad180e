// The tool schemas the model is sent (docs/tools.md, "What the model is sent"): no null
// alternatives or ±2^53 bounds, yet a null for an optional field and a bad value are still
// judged by the zod input; and the first request of each agent kind stays within its budget
// (issue 27: lead ≤ 9,000 characters, teammate ≤ 7,000), measured as the fake API receives it.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUILTIN_TOOLS } from '../../../src/core/runtime/tools';
import { reply, systemText, toolUse } from '../../fake-api';
import { waitFor } from '../../helpers/tmp';
import { harness, toolResults } from '../harness';

test('the schemas carry no null alternatives or default bounds; the input still accepts null and refuses what it always refused', () => {
  for (const t of BUILTIN_TOOLS) {
    const json = JSON.stringify(t.inputSchema());
    assert.doesNotMatch(json, /"null"|9007199254740991|"exclusiveMinimum":0|"minLength":1/, t.name);
  }
  const read = BUILTIN_TOOLS.find((t) => t.name === 'read_file')!;
  assert.deepEqual(read.parse({ path: 'a.txt', offset: null, limit: null }), { ok: true, data: { path: 'a.txt', offset: null, limit: null } });
  const bad = read.parse({ path: 'a.txt', offset: 0 });
  assert.ok(!bad.ok && /offset/.test(bad.error), 'offset must still be positive');
  const claim = BUILTIN_TOOLS.find((t) => t.name === 'claim_task')!;
  assert.ok(!claim.parse({ task_id: 2 ** 60 }).ok, 'ids are still bounded');
  const create = BUILTIN_TOOLS.find((t) => t.name === 'task_create' && t.agents.includes('lead'))!;
  const items = create.parse({ tasks: [{ subject: 'a' }, { description: 'no subject' }] });
  assert.ok(!items.ok && /tasks\.1\.subject/.test(items.error), 'each item still needs a subject');
});

test('the first request of the lead is at most 9,000 characters and a teammate\'s at most 7,000', async (t) => {
  const h = await harness(t);
  h.api.script('lead', 'Ok.');
  h.api.script('coder', reply(toolUse('idle', {})));
  await h.rt.askLead('Fix the failing test in src/calc.js.');
  await h.rt.spawnTeammate({ name: 'coder', role: 'developer', prompt: 'Fix the failing test in src/calc.js.' });
  await waitFor(() => h.api.requests('coder').length >= 1, 8000, 'coder asked');
  for (const [agent, limit] of [['lead', 9000], ['coder', 7000]] as const) {
    const body = h.api.requests(agent)[0]!.body;
    const total = systemText(body).length + JSON.stringify(body.tools ?? []).length + JSON.stringify(body.messages).length;
    assert.ok(total <= limit, `${agent}'s first request is ${total} characters (budget ${limit})`);
  }
});

test('a call with another agent\'s field names (edit_file old_string/new_string) is refused naming the unknown fields and this tool\'s own; the model fixes it at once', async (t) => {
  const h = await harness(t);
  await writeFile(join(h.root, 'a.txt'), 'one\n');
  h.api.script('lead',
    reply(toolUse('edit_file', { path: 'a.txt', old_string: 'one', new_string: 'two' })),
    reply(toolUse('edit_file', { path: 'a.txt', old_text: 'one', new_text: 'two' })),
    'Done.');
  await h.rt.askLead('Change one to two.');
  const [first, second] = toolResults(h);
  assert.match(first!, /unknown field\(s\) old_string, new_string: this tool's fields are path, old_text, new_text/);
  assert.doesNotMatch(second!, /unknown field/);
  assert.equal(await readFile(join(h.root, 'a.txt'), 'utf8'), 'two\n');
});

// Plan mode through the real SDK against the fake API: a teammate spawned in plan mode (or
// put in it while running) changes nothing until a plan for its current task is approved.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { planGate } from '../../src/core/roles/plan-mode';
import { Team } from '../../src/core/team/team';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

const exists = (h: Harness, f: string) => stat(join(h.root, f)).then(() => true, () => false);
/** The tool results the agent's model was sent in request `i`. */
const sentAt = (h: Harness, agent: string, i: number) => JSON.stringify(h.api.requests(agent)[i]?.body.messages.at(-1) ?? '');
const idle = (h: Harness, name: string) => waitFor(async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle', 8000, `${name} idle`);

test('plan mode: a write is refused before approval, allowed after, and refused again once it claims another task', async (t) => {
  const h = await harness(t);
  const t1 = await partsOf(h.rt).team.tasks.create({ subject: 'fix the parser' });
  h.api.script('ada',
    reply(toolUse('claim_task', { task_id: t1.id })),
    reply(toolUse('write_file', { path: 'a.txt', content: 'too soon' })),
    reply(toolUse('bash', { command: 'echo sneaky > b.txt' })),
    reply(toolUse('plan_approval', { plan: '1. fix the parser' })),
    reply(toolUse('idle', {})),
  );
  const member = await h.rt.spawnTeammate({ name: 'ada', role: 'dev', prompt: 'Work on the parser.', plan_mode_required: true });
  // In the spawn's own roster write: in force before the first model call.
  assert.ok(member.plan_mode?.id);
  await idle(h, 'ada');
  assert.match(JSON.stringify(h.api.requests('ada')[0]!.body.messages), /You start in plan mode/);
  assert.match(sentAt(h, 'ada', 2), /write_file is refused: you are in plan mode, and a plan must be approved first/);
  assert.match(sentAt(h, 'ada', 3), /bash is refused: you are in plan mode/);
  assert.equal(await exists(h, 'a.txt'), false);
  assert.equal(await exists(h, 'b.txt'), false);
  // The transcript says it in words (its panel and `agent-teams log` show it).
  assert.match(await readFile(join(h.root, '.team', 'transcripts', 'ada.jsonl'), 'utf8'), /planning — waiting for approval: write_file refused/);
  const [plan] = await partsOf(h.rt).team.requests.list({ kind: 'plan', status: 'pending' });
  assert.equal(plan?.task, t1.id);
  assert.equal(plan?.plan_mode_id, member.plan_mode!.id);
  // Another host sees the same closed gate, from the files alone.
  const other = await new Team(h.root).init();
  t.after(() => other.dispose());
  assert.deepEqual(await planGate(other, 'ada'), { open: false, planMode: true, pending: plan });

  // Forged approvals: the lead (plans go to the user here), another teammate, the author.
  for (const who of ['lead', 'bob', 'ada']) assert.equal((await partsOf(h.rt).team.decidePlan(who, plan!.request_id, true)).ok, false, who);
  assert.equal((await partsOf(h.rt).team.requests.get(plan!.request_id))?.status, 'pending');

  h.api.script('ada',
    reply(toolUse('write_file', { path: 'a.txt', content: 'planned' })),
    reply(toolUse('task_update', { task_id: t1.id, status: 'completed' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.decidePlan(plan!.request_id, true, 'go');
  await waitFor(() => exists(h, 'a.txt'), 8000, 'write after approval');
  assert.equal(await readFile(join(h.root, 'a.txt'), 'utf8'), 'planned');
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(t1.id))?.status === 'completed', 8000, 'task 1 done');
  await idle(h, 'ada');

  // A new task: ada claims it from the board; the approval for task 1 does not count.
  const before = h.api.requests('ada').length;
  h.api.script('ada', reply(toolUse('write_file', { path: 'c.txt', content: 'unplanned' })), reply(toolUse('idle', {})));
  const t2 = await partsOf(h.rt).team.tasks.create({ subject: 'second job' });
  await waitFor(() => h.api.requests('ada').length >= before + 2, 8000, 'ada worked on task 2');
  assert.match(JSON.stringify(h.api.requests('ada')[before]!.body.messages.at(-1)), new RegExp(`Task #${t2.id} was assigned to you automatically`));
  assert.match(sentAt(h, 'ada', before + 1), /write_file is refused: you are in plan mode/);
  assert.equal(await exists(h, 'c.txt'), false);
  assert.equal((await partsOf(h.rt).team.roster.get('ada'))?.current_task, t2.id);
});

test('request_plan racing a running command: the command already past the gate finishes, every later change is refused, also after a reload', async (t) => {
  const h = await harness(t);
  h.api.script('bea',
    reply(toolUse('bash', { command: 'sleep 0.6; echo first > r.txt' })),
    reply(toolUse('write_file', { path: 's.txt', content: 'second' })),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'bea', role: 'dev', prompt: 'Go.' });
  assert.equal((await partsOf(h.rt).team.roster.get('bea'))?.plan_mode, null);
  await waitFor(() => h.rt.activity('bea').kind === 'tool', 8000, 'bash running');
  await h.rt.requestPlan('bea', 'show me first', 'lead');
  await idle(h, 'bea');
  assert.equal((await readFile(join(h.root, 'r.txt'), 'utf8')).trim(), 'first');
  assert.match(sentAt(h, 'bea', 2), /write_file is refused: you are in plan mode/);
  // The teammate is told why, between its tool calls.
  assert.match(JSON.stringify(h.api.requests('bea').map((r) => r.body.messages)), /lead put you in plan mode: show me first/);
  assert.equal(await exists(h, 's.txt'), false);

  // A reload: the new host enforces the same gate before bea's first call there.
  await h.rt.dispose();
  await h.restart();
  h.api.script('bea', reply(toolUse('edit_file', { path: 'r.txt', old_text: 'first', new_text: 'changed' })), reply(toolUse('idle', {})));
  const before = h.api.requests('bea').length;
  await userSends(h.rt, 'bea', 'Change r.txt now.');
  await waitFor(() => h.api.requests('bea').length >= before + 2, 8000, 'bea tried');
  assert.match(sentAt(h, 'bea', before + 1), /edit_file is refused: you are in plan mode/);
  assert.equal((await readFile(join(h.root, 'r.txt'), 'utf8')).trim(), 'first');
});

test('requestPlan on an unknown or shut-down teammate is an error', async (t) => {
  const h = await harness(t);
  await assert.rejects(h.rt.requestPlan('nobody'), /not running/);
  await assert.rejects(h.rt.requestPlan('../x'), /invalid name/);
});

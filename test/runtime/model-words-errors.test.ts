// What the model reads, round two (issue: a real model's stumbles): tool results and mail
// that say what happened and what to do next. Through the real SDK against the fake API.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, type Harness } from './harness';
import { partsOf } from '../helpers/session-parts';

const lastMsg = (h: Harness, agent: string, i = -1) => JSON.stringify(h.api.requests(agent).at(i)?.body.messages.at(-1) ?? '');
const idle = (h: Harness, name: string) =>
  waitFor(async () => (await partsOf(h.rt).team.roster.get(name))?.status === 'idle', 8000, `${name} idle`);

test('claim_task returns the description; a background job\'s end is not shown as from the lead', async (t) => {
  const h = await harness(t);
  await h.rt.createTask({ subject: 'fix parser', description: 'Acceptance: npm test passes.' });
  h.api.script('lead',
    reply(toolUse('claim_task', { task_id: 1 }), toolUse('bash', { command: 'exit 3', run_in_background: true })),
    'Waiting for the job.',
    'Seen.');
  await h.rt.askLead('Take the task.');
  assert.match(lastMsg(h, 'lead', 1), /Claimed #1 \[in_progress\] owner=lead fix parser\\nDetails: Acceptance: npm test passes\./);
  await waitFor(() => h.api.requests('lead').length >= 3, 8000, 'lead woken by the job end');
  const woke = lastMsg(h, 'lead', 2);
  assert.match(woke, /<team-mail from=\\"background-job\\" type=\\"message\\"[^>]*>\\n\[background job\] job-1/);
  assert.doesNotMatch(woke, /from=\\"lead\\"/);
});

test('a respawned teammate is said to keep its conversation; send_message to the lead says whether it was idle; a plan waiter is told how to wait', async (t) => {
  const h = await harness(t, { planApproval: 'lead' });
  h.api.script('pia', reply(toolUse('send_message', { to: 'lead', content: 'hello' })), 'Done.');
  h.api.setDefault('ok');
  await h.rt.spawnTeammate({ name: 'pia', role: 'dev', prompt: 'Say hello.' });
  await waitFor(() => h.api.requests('pia').length >= 2, 8000, 'pia sent');
  assert.match(lastMsg(h, 'pia', 1), /Sent to lead \(the lead (was idle: woken now|is working: it reads this between its tool calls)\)/);
  await idle(h, 'pia');
  await waitFor(() => !h.rt.leadBusy(), 5000, 'lead idle');
  await h.rt.stopTeammate('pia');
  h.api.script('pia', reply(toolUse('plan_approval', { plan: '1. edit' }), toolUse('write_file', { path: 'x.txt', content: 'x' })), 'Waiting.');
  h.api.script('lead', reply(toolUse('spawn_teammate', { name: 'pia', role: 'dev', prompt: 'Plan first.', plan_mode_required: true })), 'ok');
  await h.rt.askLead('Bring pia back.');
  assert.match(lastMsg(h, 'lead'), /Spawned pia \(dev\).*It was here before and keeps its earlier conversation\./);
  await waitFor(() => h.api.requests('pia').length >= 4, 8000, 'pia planned');
  const planned = lastMsg(h, 'pia', 3);
  assert.match(JSON.stringify(h.api.requests('pia')[2]!.body.messages), /hello/, 'its earlier conversation is there');
  assert.match(planned, /Plan submitted \(request_id=[^)]+\) to lead\. File edits and commands stay refused until it is approved\. To wait, end your turn \(reply without a tool call\): the answer wakes you\./);
  assert.match(planned, /write_file is refused while your plan awaits approval.*To wait, end your turn/);
});

test('a tool it does not have is named plainly with its tools; the same failing call three times ends the phase, not maxRounds', async (t) => {
  const h = await harness(t, { maxRounds: 20 });
  // The lead has no idle tool: it is told so, with what it has; three identical failures end its turn.
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.askLead('Wait.');
  assert.equal(h.api.requests('lead').length, 3, 'three calls, not twenty');
  assert.match(lastMsg(h, 'lead', 1), /You have no tool named \\"idle\\"\. Your tools: bash, .*task_update/);
  assert.ok(h.events.some((e) => e.type === 'notice' && /lead repeated a failing call 3 times; its turn was ended/.test(e.message)));
  const last = h.events.filter((e) => e.type === 'tool').at(-1) as { result: string } | undefined;
  assert.match(last?.result ?? '', /failed 3 times in a row with the same error: your turn ends here/);
  // The lead can be asked again.
  h.api.script('lead', 'Ready.');
  await h.rt.askLead('Still there?');
  assert.equal(h.api.requests('lead').length, 4);
});

test('teammates are not offered task_create or read_inbox by default; a definition whose tools list names them opts back in', async (t) => {
  const h = await harness(t);
  await mkdir(join(h.root, '.team', 'agents'), { recursive: true });
  await writeFile(join(h.root, '.team', 'agents', 'planner.md'), '---\nname: planner\ndescription: plans\ntools: read_file, task_create, read_inbox\n---\nPlan.\n');
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'pat', role: 'dev', prompt: 'Wait.' });
  await h.rt.spawnTeammate({ name: 'pam', role: 'planner', prompt: 'Wait.', agent_type: 'planner' });
  await waitFor(() => h.api.requests('pat').length >= 1 && h.api.requests('pam').length >= 1, 8000, 'both asked');
  const names = (agent: string) => (h.api.requests(agent)[0]!.body.tools as Array<{ name: string }>).map((x) => x.name);
  for (const opt of ['task_create', 'read_inbox']) {
    assert.ok(!names('pat').includes(opt), names('pat').join(','));
    assert.ok(names('pam').includes(opt), names('pam').join(','));
  }
  // read_inbox's words, for whoever opts in: mail comes by itself.
  assert.match(JSON.stringify(h.api.requests('pam')[0]!.body.tools), /Messages reach you by themselves: do not poll\. Read by hand only/);
});

// Protocol and lifecycle holes found reading the engine against the tutorial: tool calls
// after an approved shutdown in the same reply, shutdown answers across incarnations, and
// broadcasts that reach only some recipients. Agents talk to the fake API through the SDK.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

test('tool calls after an approved shutdown_response in the same reply do not run', async (t) => {
  const h = await harness(t);
  h.api.script('kim', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'kim', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('kim'))?.status === 'idle', 5000, 'kim idle');
  h.api.setDefault((r) => {
    const m = /request_id=\\"(req_[a-z0-9_]+)\\"/.exec(JSON.stringify(r.body.messages.at(-1)));
    return m
      ? reply(toolUse('shutdown_response', { request_id: m[1], approve: true }), toolUse('bash', { command: 'touch after-shutdown' }))
      : reply(toolUse('idle', {}));
  });
  await h.rt.requestShutdown('kim');
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('kim'))?.status === 'shutdown', 8000, 'kim shut down');
  await assert.rejects(stat(join(h.root, 'after-shutdown')), /ENOENT/);
  const last = JSON.stringify(h.api.requests('kim').at(-1)?.body.messages ?? []);
  assert.doesNotMatch(last, /Not run: you approved/, 'no model call after the shutdown');
});

test('a shutdown request made for an earlier incarnation cannot stop the new one', async (t) => {
  const h = await harness(t, {}, 'allow');
  const team = partsOf(h.rt).team;
  await team.spawnMember('lou', 'dev');
  await team.roster.setStatus('lou', 'shutdown');
  await team.spawnMember('lou', 'dev'); // incarnation 2; its expiry sweep has run
  // A request built from a roster read before the re-spawn lands after the sweep.
  const stale = await team.requests.create({ kind: 'shutdown', from: 'lead', to: 'lou', subject: 'lou', incarnation: 1 });
  const r = await team.respondShutdown('lou', stale.request_id, true);
  assert.equal(r.ok, false);
  assert.match((r as { error: string }).error, /earlier incarnation/);
  assert.equal((await team.requests.get(stale.request_id))?.status, 'expired');
  const fresh = await team.requestShutdown('lead', 'lou');
  assert.equal((await team.respondShutdown('lou', fresh.request_id, false)).ok, true);
});

test('a broadcast that reaches only some teammates says who got it and who did not', async (t) => {
  const h = await harness(t);
  const team = partsOf(h.rt).team;
  await team.spawnMember('amy', 'dev');
  await team.spawnMember('ben', 'dev');
  // ben's inbox cannot be written (a folder in its place): his send fails, amy's succeeds.
  await mkdir(team.paths.inbox('ben'));
  const r = await team.mailbox.broadcastReport('user', 'standup');
  assert.deepEqual(r.sent.map((m) => m.to), ['amy']);
  assert.deepEqual(r.failed.map((f) => f.to), ['ben']);
  assert.deepEqual((await team.mailbox.history('amy')).map((m) => m.content), ['standup']);
  // The lead's tool says the same, so a retry need not go to amy again.
  h.api.script('lead', reply(toolUse('send_message', { to: 'all', content: 'standup 2', msg_type: 'broadcast' })), 'done');
  await h.rt.askLead('Tell everyone.');
  const result = JSON.stringify(h.api.requests('lead').at(-1)?.body.messages.at(-1));
  assert.match(result, /Broadcast to amy\. Not delivered to: ben \(/);
  assert.doesNotMatch(result, /is_error/);
});

test("a teammate's phase that ends without a word to the lead sends its final words as a `result`; the idle lead gets it once the team is quiet", async (t) => {
  const h = await harness(t);
  h.api.script('fay', 'Done: three files renamed.');
  h.api.script('lead', 'Noted.');
  await h.rt.spawnTeammate({ name: 'fay', role: 'dev', prompt: 'Rename the files.' });
  await waitFor(() => h.api.requests('lead').length >= 1, 8000, 'lead woken by the result');
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.messages), /<team-mail from=\\"fay\\" type=\\"result\\">\\nDone: three files renamed\./);
  const result = (await partsOf(h.rt).team.mailbox.history('lead')).find((m) => m.type === 'result');
  assert.equal(result?.from, 'fay');
  // A second phase (mail from the user) ends the same way: one more wake, with that result, once fay is idle again.
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('fay'))?.status === 'idle', 5000, 'fay idle');
  await waitFor(() => !h.rt.leadBusy(), 5000, 'lead idle');
  h.api.script('fay', 'Also tidied the README.');
  h.api.script('lead', 'Noted again.');
  await userSends(h.rt, 'fay', 'One more thing.');
  await waitFor(async () => (await partsOf(h.rt).team.mailbox.history('lead')).filter((m) => m.type === 'result').length === 2, 5000, 'second result');
  await waitFor(() => h.api.requests('lead').length >= 2, 5000, 'lead woken for the second result');
  await sleep(500);
  assert.equal(h.api.requests('lead').length, 2, 'one wake per result that waited, not more');
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages.at(-1)), /The team is quiet.*Also tidied the README/);
});

test('a teammate that reported to the lead itself sends no `result`; a crashed or stopped one is reported to the lead', async (t) => {
  const h = await harness(t);
  h.api.script('gil', reply(toolUse('send_message', { to: 'lead', content: 'All good.' })), 'Finished.');
  h.api.setDefault('ok');
  await h.rt.spawnTeammate({ name: 'gil', role: 'dev', prompt: 'Work.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('gil'))?.status === 'idle', 5000, 'gil idle');
  assert.deepEqual((await partsOf(h.rt).team.mailbox.history('lead')).filter((m) => m.from === 'gil').map((m) => m.type), ['message']);
  await h.rt.stopTeammate('gil');
  await waitFor(async () => (await partsOf(h.rt).team.mailbox.history('lead')).some((m) => m.type === 'result' && /stopped by the user/.test(m.content)), 5000, 'stop reported');
  const stopReport = (await partsOf(h.rt).team.mailbox.history('lead')).find((m) => m.type === 'result');
  assert.equal((stopReport as { notice?: boolean }).notice, true, 'a stop by the user does not wake the lead');
});

test('roster entries named user or lead (hand-edited, cloned) are never run as teammates', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  await writeFile(partsOf(h.rt).team.paths.config, JSON.stringify({
    team_name: 'x',
    members: [
      { name: 'user', role: 'impostor', status: 'working' },
      { name: 'lead', role: 'impostor', status: 'idle' },
      { name: 'real', role: 'dev', status: 'idle' },
    ],
  }));
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.restart();
  await sleep(500);
  assert.equal(h.api.requests('user').length, 0, 'no model call as "user"');
  assert.deepEqual((await partsOf(h.rt).team.roster.list()).map((m) => m.name), ['real']);
  assert.equal(h.rt.activity('user').kind, 'stopped');
  const onDisk = JSON.parse(await readFile(partsOf(h.rt).team.paths.config, 'utf8')) as { members: { name: string }[] };
  assert.deepEqual(onDisk.members.map((m) => m.name).sort(), ['lead', 'real', 'user'], 'kept in the file, untouched');
});

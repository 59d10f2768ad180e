import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, sentText } from './harness';
import { partsOf, userSends } from '../helpers/session-parts';

test('the lead spawns two teammates who message each other and report to the lead', async (t) => {
  const h = await harness(t);
  h.api.script('lead',
    reply('Spawning.', toolUse('spawn_teammate', { name: 'alice', role: 'writer', prompt: 'Write notes.md then tell bob.' }),
      toolUse('spawn_teammate', { name: 'bob', role: 'reviewer', prompt: 'Wait for alice.' })),
    'Team is working.',
  );
  h.api.script('alice',
    reply(toolUse('write_file', { path: 'notes.md', content: '# Notes\n' })),
    reply(toolUse('send_message', { to: 'bob', content: 'notes.md is ready' })),
    reply(toolUse('idle', {})),
  );
  h.api.script('bob',
    reply(toolUse('idle', {})),
    reply(toolUse('read_file', { path: 'notes.md' })),
    reply(toolUse('send_message', { to: 'lead', content: 'Reviewed notes.md: fine.' })),
    reply(toolUse('idle', {})),
  );
  h.api.script('lead', 'Thanks, all done.');
  await h.rt.askLead('Write and review notes.');
  await waitFor(() => h.api.requests('lead').length >= 3, 10_000, 'lead woken by bob');
  assert.equal(await readFile(join(h.root, 'notes.md'), 'utf8'), '# Notes\n');
  // bob saw alice's message marked with its sender, not as the user's words.
  const bobSaw = h.api.requests('bob').map((r) => JSON.stringify(r.body.messages)).join('\n');
  assert.match(bobSaw, /<team-mail from=\\"alice\\" type=\\"message\\">\\nnotes.md is ready/);
  assert.match(sentText(h.api, 'lead'), /<team-mail from=\\"bob\\" type=\\"message\\">\\nReviewed notes.md: fine./);
  const roster = await partsOf(h.rt).team.roster.list();
  assert.deepEqual(roster.map((m) => m.name).sort(), ['alice', 'bob']);
  await waitFor(async () => (await partsOf(h.rt).team.roster.list()).every((m) => m.status === 'idle'), 5000, 'both idle');
  // Identity in the system prompt is stable across a teammate's requests (prompt cache).
  const systems = new Set(h.api.requests('alice').map((r) => JSON.stringify(r.body.system)));
  assert.equal(systems.size, 1);
  const usage = (await partsOf(h.rt).team.roster.get('alice'))?.usage;
  assert.ok(usage && usage.input + usage.cache_read + usage.cache_write > 0, 'usage persisted per teammate');
});

test('mail reaches a working teammate between tool rounds, not only at the end of its turn', async (t) => {
  const h = await harness(t);
  await partsOf(h.rt).team.tasks.create({ subject: 'x' });
  h.api.script('carol',
    reply(toolUse('bash', { command: 'sleep 0.5; echo slept' })),
    (r) => {
      const seen = JSON.stringify(r.body.messages);
      return seen.includes('stop and check in') ? reply(toolUse('idle', {})) : 'mail missing';
    },
  );
  await h.rt.spawnTeammate({ name: 'carol', role: 'r', prompt: 'Sleep.' });
  await h.api.waitForRequest((r) => r.agent === 'carol', 5000);
  await userSends(h.rt, 'carol', 'stop and check in');
  await waitFor(() => h.api.requests('carol').length >= 2, 5000);
  const second = JSON.stringify(h.api.requests('carol')[1]!.body.messages.at(-1));
  assert.match(second, /tool_result/);
  assert.match(second, /team-mail from=\\"user\\"/);
});

test('three tasks in a dependency chain are completed by two autonomous teammates in order', async (t) => {
  const h = await harness(t);
  const b = partsOf(h.rt).team.tasks;
  const t1 = await b.create({ subject: 'schema' });
  const t2 = await b.create({ subject: 'api', blockedBy: [t1.id] });
  const t3 = await b.create({ subject: 'ui', blockedBy: [t2.id] });
  const order: number[] = [];
  // Each teammate completes whatever task it was handed, then idles.
  const worker = (r: { body: { messages: unknown[] } }) => {
    const last = JSON.stringify(r.body.messages.at(-1));
    const m = /Task #(\d+) was assigned to you automatically/.exec(last) ?? /Resume your task #(\d+)/.exec(last);
    if (!m) return reply(toolUse('idle', {}));
    order.push(Number(m[1]));
    return reply(toolUse('task_update', { task_id: Number(m[1]), status: 'completed' }), toolUse('idle', {}));
  };
  h.api.script('dana', reply(toolUse('idle', {})));
  h.api.script('erin', reply(toolUse('idle', {})));
  for (let i = 0; i < 6; i++) {
    h.api.script('dana', worker);
    h.api.script('erin', worker);
  }
  await h.rt.spawnTeammate({ name: 'dana', role: 'dev', prompt: 'Take tasks from the board.' });
  await h.rt.spawnTeammate({ name: 'erin', role: 'dev', prompt: 'Take tasks from the board.' });
  await waitFor(async () => (await b.list()).every((x) => x.status === 'completed'), 15_000, 'all completed');
  assert.deepEqual(order, [t1.id, t2.id, t3.id]);
  const owners = new Set((await b.list()).map((x) => x.owner));
  assert.ok([...owners].every((o) => o === 'dana' || o === 'erin'));
});

test('an idle teammate makes no model calls', async (t) => {
  const h = await harness(t, { idlePollSeconds: 0.2 });
  h.api.script('finn', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'finn', role: 'r', prompt: 'Nothing yet.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('finn'))?.status === 'idle', 5000);
  const before = h.api.requests('finn').length;
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(h.api.requests('finn').length, before);
});

test('idle timeout: an idle teammate with no work shuts down and says so', async (t) => {
  const h = await harness(t, { idleTimeoutSeconds: 1, idlePollSeconds: 0.2 });
  h.api.script('gil', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'gil', role: 'r', prompt: 'Nothing.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('gil'))?.status === 'shutdown', 5000, 'timed out to shutdown');
  assert.ok(h.events.some((e) => e.type === 'notice' && /gil shut down after idling/.test(e.message)));
  assert.equal(h.api.requests('gil').length, 1);
});

test('identity is re-stated when an idle teammate picks up work', async (t) => {
  const h = await harness(t);
  h.api.script('hana', reply(toolUse('idle', {})), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'hana', role: 'tester', prompt: 'Wait for work.' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('hana'))?.status === 'idle', 5000);
  await h.rt.createTask({ subject: 'write tests' });
  await waitFor(() => h.api.requests('hana').length >= 2, 5000, 'woken by the task');
  assert.match(JSON.stringify(h.api.requests('hana')[1]!.body.messages.at(-1)), /<identity>You are hana, role: tester, team: [^<]+<\/identity>\\nTask #1 was assigned to you automatically because you were idle and it became unblocked: write tests/);
});

test('wakeLeadOnMail off: mail waits for the next turn instead of waking the lead', async (t) => {
  const h = await harness(t, { wakeLeadOnMail: false });
  await partsOf(h.rt).team.mailbox.send({ from: 'user', to: 'lead', type: 'message', content: 'fyi' });
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(h.api.requests('lead').length, 0);
  h.api.script('lead', 'ok');
  await h.rt.askLead('anything new?');
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.messages), /team-mail from=\\"user\\" type=\\"message\\">\\nfyi.*anything new\?/);
});

test('mail that lands while the idle lead is reading its inbox still wakes it (no lost wake)', async (t) => {
  const h = await harness(t);
  h.api.script('lead', 'Got it.');
  await partsOf(h.rt).team.spawnMember('bob', 'reviewer');
  const mailbox = partsOf(h.rt).team.mailbox;
  const unread = mailbox.unread.bind(mailbox);
  let armed = true;
  // The moment the wake used to be dropped: bob's mail arrives (and its wake fires) after the
  // lead's read of its inbox has looked, before that read returns.
  mailbox.unread = async (name: string, atLeast?: number) => {
    const d = await unread(name, atLeast);
    if (name === 'lead' && armed) {
      armed = false;
      await mailbox.send({ from: 'bob', to: 'lead', type: 'message', content: 'Reviewed: fine.' });
      partsOf(h.rt).runner!.lead.onMail();
    }
    return d;
  };
  partsOf(h.rt).runner!.lead.onMail(); // a wake with nothing new yet starts the read
  await waitFor(() => h.api.requests('lead').length === 1, 5000, 'the lead woke for bob\'s mail');
  assert.match(sentText(h.api, 'lead'), /Reviewed: fine\./);
});

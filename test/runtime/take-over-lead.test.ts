// Take Over Lead (README.md, "One lead per workspace"): two hosts on one workspace; the one
// running the lead still renews its lease (its window is gone, its backend is not), and the
// other takes the lead over on the user's word. The old host's lead stops — its turn is
// dropped, not finished — and the new host carries the conversation on: never two leads.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { partsOf, userSends } from '../helpers/session-parts';
import { shaped } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, modelsFor, startSession, TEST_SETTINGS } from './harness';

test('a second host takes the lead over from a live host: the old lead stops, the new one carries the turn on', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  // Host A renews every 300 ms; host B deems a lease stale after 3 × 2 s: A's never goes stale
  // (margins a loaded machine does not break), so only a forced take moves the lead.
  const a = await h.restart({ hostId: 'window-a', heartbeatMs: 300 });
  h.api.script('lead', shaped('never finishes', { stallAfter: 1 }));
  void a.askLead('Plan the release.');
  await waitFor(() => h.api.requests('lead').length === 1, 5000, 'host A\'s lead is in a turn');

  const b = await startSession({ root: h.root, hostId: 'window-b', settings: TEST_SETTINGS, models: modelsFor(h.api), approver: { bash: async () => 'deny' }, heartbeatMs: 2000 });
  t.after(() => b.dispose());
  assert.equal(b.activity('lead').kind, 'remote', 'host B sees the lead run elsewhere');
  // Adoption never happens on its own while A renews (B looks for a lead to adopt every 2 s).
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(b.activity('lead').kind, 'remote');

  h.api.script('lead', 'Release plan: ship on Friday.');
  assert.equal(await b.takeOverLead(), 'window-a', 'taken from host A');
  assert.notEqual(b.activity('lead').kind, 'remote', 'the lead runs on host B at once');
  assert.equal((await partsOf(b).team.roster.read()).lead?.host?.id, 'window-b');

  // Host A stops its lead at its next heartbeat: the stalled request is dropped, and A shows the lead as remote.
  await waitFor(() => a.activity('lead').kind === 'remote', 3000, 'host A stood its lead down');
  await waitFor(() => h.api.requests('lead')[0]!.disconnectedAt !== undefined, 3000, 'host A\'s turn dropped');
  // Host B carries the interrupted turn on, with its conversation.
  await waitFor(() => h.api.requests('lead').length === 2, 5000, 'host B asked the model');
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages), /Plan the release\./);
  await waitFor(async () => /ship on Friday/.test(await readFile(partsOf(b).team.paths.transcript('lead'), 'utf8')), 5000, 'the answer in the transcript');

  // Never two leads: A does not take it back, and one more message makes one model call.
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(a.activity('lead').kind, 'remote');
  assert.equal((await partsOf(a).team.roster.read()).lead?.host?.id, 'window-b');
  h.api.script('lead', 'Noted.');
  await userSends(a, 'lead', 'One more thing.');
  await waitFor(() => h.api.requests('lead').length === 3, 5000, 'the lead read the mail');
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(h.api.requests('lead').length, 3, 'one model call for one message');
  assert.doesNotMatch(await readFile(partsOf(b).team.paths.transcript('lead'), 'utf8'), /The user stopped this turn/);
  await b.dispose(); // before the harness removes the folder
});

test('Take Over Lead where the lead already runs changes nothing', async (t) => {
  const h = await harness(t);
  assert.equal(await h.rt.takeOverLead(), null);
  assert.notEqual(h.rt.activity('lead').kind, 'remote');
  assert.equal((await partsOf(h.rt).team.roster.read()).lead?.host?.id, h.rt.hostId);
});

// Split brain after a pause (docs/file-formats.md, leases): a host whose clock jumped past
// its lease (SIGSTOP, a laptop asleep) renews before it acts again, and stops an agent that
// another host took over meanwhile, so only one host ever calls the model or writes the
// transcript for it. The pause is simulated deterministically in one process: host A's
// heartbeat stops while its teammate's shell command runs, as a frozen process's would.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness, modelsFor, startSession, TEST_SETTINGS } from './harness';
import { partsOf } from '../helpers/session-parts';

test('a host paused past its lease does not act for a teammate another host took over meanwhile', async (t) => {
  const h = await harness(t);
  await h.rt.dispose();
  const start = (hostId: string) => startSession({
    root: h.root, settings: TEST_SETTINGS, models: modelsFor(h.api), approver: { bash: async () => 'allow' }, heartbeatMs: 300, hostId,
  });
  const a = await start('host-a');
  t.after(() => a.dispose());
  const events: string[] = [];
  a.onEvent((e) => e.type === 'notice' && events.push(e.message));
  h.api.script('amy', reply(toolUse('bash', { command: 'sleep 2; echo A-$((1+1))-SLEPT' })), reply(toolUse('idle', {})));
  await a.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Go.' });
  await waitFor(() => h.api.requests('amy').length === 1, 5000, 'amy runs the command');
  // Host A freezes: no more heartbeats while the command runs.
  partsOf(a).runner!.leases.stop();
  await sleep(1200);
  const b = await start('host-b');
  t.after(() => b.dispose());
  await waitFor(async () => (await partsOf(b).team.roster.get('amy'))?.host?.id === 'host-b', 5000, 'host B takes amy over');
  // A's command ends after the takeover: A must not write its result or call the model.
  await waitFor(() => events.some((m) => /amy is now run by another window \(host host-b\)/.test(m)), 8000, 'A stands down');
  await sleep(300);
  const transcript = await readFile(partsOf(b).team.paths.transcript('amy'), 'utf8');
  assert.doesNotMatch(transcript, /A-2-SLEPT/, 'nothing of A after the takeover in the transcript');
  for (const r of h.api.requests('amy')) assert.doesNotMatch(JSON.stringify(r.body.messages), /A-2-SLEPT/);
});

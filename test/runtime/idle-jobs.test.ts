// A teammate that runs its long test as a background job and goes idle to wait for it is not
// shut down by the idle timeout while the job runs, and the team does not count as quiet then
// (docs/tools.md, "Background jobs"): the job's end wakes it, and it finishes its work. Before,
// it was shut down after the idle timeout, the job killed with it and the work left undone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { sleep, waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

test('a teammate waiting idle for its background job is not idled out while the job runs; the job\'s end wakes it', async (t) => {
  const h = await harness(t, { idleTimeoutSeconds: 1, idlePollSeconds: 1 });
  h.api.script('amy',
    reply(toolUse('bash', { command: 'sleep 4; echo tests-passed', run_in_background: true })),
    reply(toolUse('idle', {})),
    reply(toolUse('job_output', { job_id: 'job-1' })),
    'The tests passed.',
  );
  h.api.script('lead', 'Ok.', 'Ok.', 'Ok.');
  await h.rt.spawnTeammate({ name: 'amy', role: 'dev', prompt: 'Run the tests in the background and wait for them.' });
  await waitFor(() => h.api.requests('amy').length >= 2, 10_000, 'amy went idle');
  await sleep(2500); // past the 1 s idle timeout, with the job still running
  assert.notEqual((await partsOf(h.rt).team.roster.get('amy'))?.status, 'shutdown', 'amy was not idled out while its job ran');
  await waitFor(() => h.api.requests('amy').length >= 4, 15_000, 'the job\'s end woke amy and it read the output');
  assert.match(JSON.stringify(h.api.requests('amy').at(-1)!.body.messages), /tests-passed/);
});

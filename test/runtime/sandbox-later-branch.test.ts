// A third red-team round's attack: the lead's background job, started before the first worktree
// teammate, waits for `refs/heads/wt/<name>` to appear (the host makes it at spawn) and moves it.
// The job's policy was fixed when it started, when `refs/heads/wt` did not exist yet; now that
// folder is guarded while the lead's commands run, so a branch the host makes there later is
// read-only to them (docs/security.md, "The policy table").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { waitFor } from '../helpers/tmp';

const exec = promisify(execFile);

test("a lead's job started before a worktree teammate existed cannot move that teammate's branch", async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  const g = (...a: string[]) => exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: h.root });
  await g('init', '-q', '-b', 'main');
  await g('commit', '-q', '--allow-empty', '-m', 'base');
  await g('commit', '-q', '--allow-empty', '-m', 'second');
  const base = (await g('rev-parse', 'HEAD~1')).stdout.trim();
  const job = 'for i in $(seq 1 300); do if [ -e .git/refs/heads/wt/bob ]; then sleep 0.5; git rev-parse HEAD~1 > .git/refs/heads/wt/bob && echo MOVED; break; fi; sleep 0.1; done; echo end';
  h.api.script('lead',
    reply(toolUse('bash', { command: job, run_in_background: true })),
    reply(toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Wait.', isolation: 'worktree' })),
    'Done.', 'Noted.', 'Noted.', 'Noted.');
  h.api.script('bob', 'Waiting.');
  await h.rt.askLead('Go.');
  assert.match(toolResults(h)[1]!, /Spawned bob/);
  await waitFor(async () => /job-1 .* ended/s.test(JSON.stringify(h.api.requests('lead').at(-1)?.body.messages)), 30_000, 'the job ended');
  assert.notEqual((await g('rev-parse', 'refs/heads/wt/bob')).stdout.trim(), base, "bob's branch was moved by the lead's job");
});

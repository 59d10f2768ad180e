// Host-side git obeys the git folder's `commondir`: one written there would send it to a config
// and hooks of the command's choosing. The sandbox leaves the top of the git folder read-only
// but for what a commit writes (docs/security.md, "The policy table"), and the product's git
// names its folders explicitly. The attack of the red-team round: a background job keeps
// writing `.git/commondir` (pointing at a copy of `.git` with a `post-checkout` hook) while the
// lead spawns a worktree teammate, whose `git worktree add` ran the hook on the host.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

const exec = promisify(execFile);

test('a sandboxed command cannot write .git/commondir; a job that keeps trying gets no hook run by the worktree the lead makes', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q'], { cwd: h.root });
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: h.root });
  const ranHook = join(h.root, 'hook-ran');
  const ranMonitor = join(h.root, 'fsmonitor-ran');
  const plant = [
    'mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/',
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch ${ranMonitor}; false"\\n' > evil/config`,
    `printf '#!/bin/sh\\ntouch ${ranHook}\\n' > evil/hooks/post-checkout && chmod +x evil/hooks/post-checkout`,
    'echo planted; echo ../evil > .git/commondir',
  ].join('; ');
  const loop = `while true; do echo ${h.root}/evil > .git/commondir 2>/dev/null; sleep 0.05; done`;
  h.api.script('lead',
    reply(toolUse('bash', { command: plant })),
    reply(toolUse('bash', { command: loop, run_in_background: true })),
    reply(toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Wait.', isolation: 'worktree' })),
    'Done.');
  h.api.script('bob', 'Waiting.');
  await h.rt.askLead('Go.');
  const results = toolResults(h);
  assert.match(results[0]!, /planted/, 'the command ran');
  assert.match(results[0]!, /Read-only file system/, 'the write to .git/commondir is refused');
  assert.match(results[2]!, /bob/, 'the teammate was spawned in its worktree');
  await exec('git', ['status', '--short'], { cwd: h.root });
  await exec('git', ['status', '--short'], { cwd: join(h.root, '.worktrees', 'bob') });
  assert.equal(await stat(ranHook).then(() => 'ran', () => 'not run'), 'not run', 'the planted hook never ran');
  assert.equal(await stat(ranMonitor).then(() => 'ran', () => 'not run'), 'not run', 'the planted fsmonitor never ran');
});

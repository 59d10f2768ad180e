// Inside the sandbox a command writes in the repository's git folder only where its commits
// need to (docs/security.md, "The policy table"): the object store, its own branch's ref and
// reflog, its own index and worktree admin folder. A scripted worktree teammate, through the
// real SDK, tries to move the user's checked-out branch past the merge queue and to plant what
// host-side git would obey; its own commit still works. The lead commits on the checked-out
// branch and cannot move a teammate's.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { waitFor } from '../helpers/tmp';
import { initRepo } from './git-helpers';

const exec = promisify(execFile);
const rev = async (cwd: string, ref: string) => (await exec('git', ['rev-parse', ref], { cwd })).stdout.trim();
const id = '-c user.name=a -c user.email=a@a';

/** A session whose commands run sandboxed and unasked, over a repository on `main` with one commit. */
async function sandboxedRepo(t: Parameters<typeof harness>[0]) {
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await initRepo(h.root, 'base.txt');
  return h;
}

test('a worktree teammate cannot move the user\'s branch or plant config, hooks or excludes; its own commits land on wt/<name>', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await sandboxedRepo(t);
  const mainBefore = await rev(h.root, 'main');
  const g = join(h.root, '.git');
  const attacks = [
    `git ${id} commit -q --allow-empty -m evil && git update-ref refs/heads/main HEAD`,
    'git branch -f main HEAD',
    `git rev-parse HEAD > ${g}/refs/heads/main`,
    `echo "$(git rev-parse HEAD) refs/heads/main" > ${g}/packed-refs`,
    `printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' >> ${g}/config`,
    `mkdir -p ${g}/info && echo x > ${g}/info/exclude`,
    `echo '#!/bin/sh' > ${g}/hooks/pre-commit`,
    `echo . > ${g}/commondir`,
    `git update-ref refs/tags/evil HEAD`,
  ];
  h.api.script('lead',
    reply(toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Go.', isolation: 'worktree' })),
    'Spawned.');
  h.api.script('bob',
    ...attacks.map((command) => reply(toolUse('bash', { command: `${command}; echo "exit=$?"` }))),
    reply(toolUse('bash', { command: `echo work > f.txt && git add f.txt && git ${id} commit -q -m mine && echo committed` })),
    'Done.');
  await h.rt.askLead('Go.');
  await waitFor(async () => toolResults(h, 'bob').length === attacks.length + 1 && h.api.requests('bob').length === attacks.length + 2, 30_000, 'bob done');
  const results = toolResults(h, 'bob');
  assert.equal(results.length, attacks.length + 1, results.join('\n---\n'));
  assert.equal(await rev(h.root, 'main'), mainBefore, 'the user\'s branch did not move');
  attacks.forEach((a, i) => assert.match(results[i]!, /exit=[1-9]/, `refused: ${a}\n${results[i]}`));
  assert.doesNotMatch(await readFile(join(g, 'config'), 'utf8'), /fsmonitor/);
  assert.equal(await lstat(join(g, 'hooks', 'pre-commit')).then(() => 'there', () => 'absent'), 'absent');
  assert.equal(await lstat(join(g, 'commondir')).then(() => 'there', () => 'absent'), 'absent', 'no cover is left behind');
  assert.ok(!(await readFile(join(g, 'info', 'exclude'), 'utf8').catch(() => '')).split('\n').includes('x'), 'info/exclude untouched');
  assert.match(results[attacks.length]!, /committed/, 'its own commit works');
  assert.equal((await exec('git', ['log', '-1', '--format=%s', 'wt/bob'], { cwd: h.root })).stdout.trim(), 'mine');
});

test('the lead commits on the checked-out branch but cannot move a teammate\'s branch or switch the checkout', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await sandboxedRepo(t);
  await exec('git', ['branch', 'wt/bob'], { cwd: h.root });
  const bobBefore = await rev(h.root, 'wt/bob');
  h.api.script('lead',
    reply(toolUse('bash', { command: `echo a > a.txt && git add a.txt && git ${id} commit -q -m lead-work && echo committed` })),
    reply(toolUse('bash', { command: 'git update-ref refs/heads/wt/bob HEAD; echo "exit=$?"' })),
    reply(toolUse('bash', { command: 'git checkout -q -b other; echo "exit=$?"' })),
    'Done.');
  await h.rt.askLead('Go.');
  const [commit, moveBob, checkout] = toolResults(h);
  assert.match(commit!, /committed/, commit);
  assert.equal((await exec('git', ['log', '-1', '--format=%s', 'main'], { cwd: h.root })).stdout.trim(), 'lead-work');
  assert.match(moveBob!, /exit=[1-9]/);
  assert.equal(await rev(h.root, 'wt/bob'), bobBefore);
  assert.match(checkout!, /exit=[1-9]/);
  assert.equal((await readFile(join(h.root, '.git', 'HEAD'), 'utf8')).trim(), 'ref: refs/heads/main');
});

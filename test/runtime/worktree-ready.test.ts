// Worktrees ready to work in (docs/file-formats.md, "Team settings"): `.team/settings.json`
// `worktree.copy` brings files over from the main checkout and `worktree.setup` runs in the
// new checkout before the teammate's first model call — real git, the real SDK, the fake API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, sentText } from './harness';
import { projectRepo } from './worktree-fixture';
import { partsOf } from '../helpers/session-parts';

const exec = promisify(execFile);

test('a new worktree gets its copies and setup before the teammate\'s first model call; the output is in its transcript', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, {
    copy: ['.env', 'node_modules'],
    // Sees the copied dependency, and takes a moment: the first call must wait for it.
    setup: ['test -f node_modules/dep/index.js && sleep 0.3 && echo "installed $(cat .env)" | tee .setup-done'],
  });
  h.api.script('ann', reply(toolUse('bash', { command: 'cat .setup-done' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Run the tests.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle', 10_000, 'ann idle');
  const wt = join(h.root, '.worktrees', 'ann');
  // Copied, not linked: the worktree's files are its own.
  assert.equal(await readFile(join(wt, '.env'), 'utf8'), 'TOKEN=local\n');
  assert.equal(await readFile(join(wt, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = 1;\n');
  assert.notEqual((await stat(join(wt, 'node_modules', 'dep', 'index.js'))).ino, (await stat(join(h.root, 'node_modules', 'dep', 'index.js'))).ino);
  assert.ok(!(await stat(join(wt, 'node_modules')).then((s) => s.isSymbolicLink())));
  // The first call already knew the setup ran, and the file it made was there.
  const first = sentText(h.api, 'ann', 0);
  assert.match(first, /Your worktree was set up before you started: copied \.env, node_modules; ran `test -f node_modules/);
  assert.match(sentText(h.api, 'ann'), /installed TOKEN=local/);
  const transcript = await readFile(partsOf(h.rt).team.paths.transcript('ann'), 'utf8');
  assert.match(transcript, /Worktree setup: copied \.env, node_modules from the main checkout/);
  assert.match(transcript, /installed TOKEN=local\\n\\nExit code: 0/);
  assert.ok(transcript.indexOf('Worktree setup: running') < transcript.indexOf('"kind":"msg"'), 'setup lines before the first message');
  // What was copied is recorded, so keep/remove do not take it for the teammate's work.
  assert.deepEqual((await h.rt.worktrees.get('ann'))?.copied, ['.env', 'node_modules']);
});

test('a failing setup is reported to the lead and the user, and the teammate starts anyway, told so', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, { copy: ['../outside', 'nothing-here'], setup: ['echo "npm ERR! network down" >&2; exit 7', 'echo never > .second'] });
  h.api.script('bo', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bo', role: 'dev', prompt: 'Start.', isolation: 'worktree' });
  await waitFor(() => h.api.requests('bo').length > 0, 10_000, 'bo\'s first call');
  const first = sentText(h.api, 'bo', 0);
  assert.match(first, /The setup of your worktree failed/);
  assert.match(first, /npm ERR! network down/);
  assert.match(first, /exit code 7/);
  assert.match(first, /\.\.\/outside.*leaves the workspace/);
  assert.match(first, /Start\./, 'its own instructions follow');
  // The first failure stops the rest.
  await assert.rejects(stat(join(h.root, '.worktrees', 'bo', '.second')));
  // The lead may already have read it (mail wakes it): its whole inbox is looked at.
  const toLead = await partsOf(h.rt).team.mailbox.history('lead');
  assert.ok(toLead.some((m) => m.from === 'bo' && /setup of worktree "bo" for bo failed.*exit code 7/s.test(m.content)), 'the lead is told');
  const notice = h.events.find((e) => e.type === 'notice' && e.level === 'error' && e.agent === 'bo');
  assert.match((notice as { message: string } | undefined)?.message ?? '', /setup of worktree "bo" for bo failed.*bo starts anyway/);
});

test('a malformed worktree setup in .team/settings.json is reported, not run and not silent', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, { setup: 'npm ci' });
  h.api.script('cy', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'cy', role: 'dev', prompt: 'Start.', isolation: 'worktree' });
  await waitFor(() => h.api.requests('cy').length > 0, 10_000, 'cy\'s first call');
  assert.match(sentText(h.api, 'cy', 0), /\.team\/settings\.json \\"worktree\\" ignored: setup: /);
});

test('security: a link the teammate committed on its branch cannot lead the copy out of its worktree', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, { copy: ['pkg/node_modules'] });
  await mkdir(join(h.root, 'pkg', 'node_modules', 'lib'), { recursive: true });
  await writeFile(join(h.root, 'pkg', 'node_modules', 'lib', 'a.js'), 'x\n');
  const outside = join(h.root, '..', `outside-${Date.now()}`);
  await mkdir(outside);
  t.after(() => exec('rm', ['-rf', outside]));
  // The model replaces pkg/ on its branch with a link out of the workspace, commits, and goes.
  const commit = 'git -c user.name=t -c user.email=t@t commit -qm link';
  h.api.script('eve', reply(toolUse('bash', { command: `rm -rf pkg && ln -s ${outside} pkg && git add pkg && ${commit}` })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Go.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('eve'))?.status === 'idle', 10_000, 'eve idle');
  await h.rt.stopTeammate('eve');
  await h.rt.worktrees.keep('eve', { force: true });
  // Spawned again, its kept branch is checked out with the link; the copy refuses to follow it.
  h.api.script('eve', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Again.', isolation: 'worktree' });
  await waitFor(() => sentText(h.api, 'eve').includes('Again.'), 10_000, 'eve\'s second start');
  assert.match(sentText(h.api, 'eve'), /copy pkg\/node_modules: pkg leads outside the worktree/);
  assert.deepEqual(await exec('ls', ['-A', outside]).then((r) => r.stdout), '', 'nothing written outside');
});

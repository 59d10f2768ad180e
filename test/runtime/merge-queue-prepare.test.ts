// The merge queue's scratch checkout made ready to test (docs/file-formats.md, "Merge queue"):
// with nothing configured, a package.json project's test finds the main checkout's ignored
// node_modules; worktree.copy globs are brought over and worktree.setup runs once per run of the
// queue, again when a lockfile changed; `prepared` says how. Real git, the queue alone.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { MergeQueue } from '../../src/core/merge/merge-queue';
import { Team } from '../../src/core/team/team';
import { WorktreeManager } from '../../src/core/worktree/manager';
import type { WorktreeSetup } from '../../src/core/worktree/setup-config';
import { DEFAULT_SANDBOX } from '../../src/shared/sandbox-schemas';
import type { MergeEntry } from '../../src/shared/schemas/merge-queue';
import { tempDir, waitFor } from '../helpers/tmp';
import { git, initRepo } from './git-helpers';

/** An npm project: package.json + lockfile tracked, node_modules/dep ignored and present only in the main checkout. */
async function npmProject(root: string, lockfile = true): Promise<void> {
  await initRepo(root, 'shared.txt', {
    'package.json': '{"name":"p","version":"1.0.0"}\n', ...(lockfile ? { 'package-lock.json': '{"lockfileVersion":3}\n' } : {}), '.gitignore': 'node_modules/\n.env\n',
  });
  await mkdir(join(root, 'node_modules', 'dep'), { recursive: true });
  await writeFile(join(root, 'node_modules', 'dep', 'index.js'), 'module.exports = "dep-ok";\n');
  await writeFile(join(root, '.env'), 'SECRET=local\n');
}

async function setup(t: Parameters<typeof tempDir>[0], worktreeSetup?: WorktreeSetup, lockfile = true) {
  const root = await tempDir(t);
  await npmProject(root, lockfile);
  const wm = new WorktreeManager(root);
  const team = await new Team(root).init();
  const q = new MergeQueue({ team, worktrees: wm, hostId: 'test', settings: () => ({ sandbox: { ...DEFAULT_SANDBOX, mode: 'off' }, ...(worktreeSetup ? { worktreeSetup } : {}) }) });
  t.after(async () => { await q.dispose(); team.dispose(); });
  const branch = async (name: string, file = `${name}.txt`, content = `${name}\n`) => {
    const wt = await wm.create(name);
    await writeFile(join(wt.path, file), content);
    await git(wt.path, 'add', file);
    await git(wt.path, 'commit', '-qm', `${name} work`);
  };
  const settled = (names: string[]) => waitFor(async () => {
    const m = await q.latestByTeammate();
    return names.every((n) => ['merged', 'failed'].includes(m.get(n)?.state ?? '')) ? m : undefined;
  }, 30_000, `${names.join(', ')} settled`) as Promise<Map<string, MergeEntry>>;
  return { root, q, branch, settled };
}

// With a lockfile, and without (a library often commits none: bridge run C15's `xo: not found`, blamed on the environment).
for (const lockfile of [true, false]) {
  test(`nothing configured: the test of an npm project ${lockfile ? 'with' : 'without'} a lockfile finds the main checkout's ignored node_modules; \`prepared\` says it was shared`, async (t) => {
    const s = await setup(t, undefined, lockfile);
    s.q.start();
    await s.branch('ann');
    await s.q.add('ann', { by: 'user', testCommand: 'node -e "if (require(\'dep\') !== \'dep-ok\') process.exit(1)"' });
    const e = (await s.settled(['ann'])).get('ann')!;
    assert.equal(e.state, 'merged', `${e.reason}\n${e.output_tail}`);
    assert.equal(e.prepared?.mode, 'shared');
    assert.match(e.prepared?.detail ?? '', /node_modules/);
  });
}

test('worktree.copy and worktree.setup: copied and run once per run of the queue, again when the lockfile changes', async (t) => {
  const counter = join(await tempDir(t), 'setup-runs');
  const s = await setup(t, { copy: ['.env'], setup: [`echo ran >> '${counter}' && echo made > built.txt`] });
  s.q.start();
  await s.branch('ann');
  await s.branch('ben');
  await s.branch('cal', 'package-lock.json', '{"lockfileVersion":3,"changed":true}\n');
  const check = 'test -e .env && test -e built.txt';
  await s.q.add('ann', { by: 'user', testCommand: `sleep 1; ${check}` });
  await s.q.add('ben', { by: 'user', testCommand: check });
  await s.q.add('cal', { by: 'user', testCommand: check });
  const done = await s.settled(['ann', 'ben', 'cal']);
  for (const n of ['ann', 'ben', 'cal']) assert.equal(done.get(n)?.state, 'merged', `${n}: ${done.get(n)?.reason}\n${done.get(n)?.output_tail}`);
  assert.equal(done.get('ann')?.prepared?.mode, 'setup');
  assert.match(done.get('ann')?.prepared?.detail ?? '', /copied \.env; ran `echo ran/);
  assert.equal((await readFile(counter, 'utf8')).trim().split('\n').length, 2, 'once for ann and ben (one run), once more for cal (its lockfile changed)');
});

test('a failing setup fails the entry at the prepare step, blamed on the environment, with the exit code and first errors', async (t) => {
  const s = await setup(t, { setup: ['echo "npm ERR! missing registry" >&2; exit 7'] });
  s.q.start();
  await s.branch('ann');
  await s.q.add('ann', { by: 'user', testCommand: 'true' });
  const e = (await s.settled(['ann'])).get('ann')!;
  assert.equal(e.state, 'failed');
  assert.equal(e.failure?.step, 'prepare');
  assert.equal(e.failure?.fault, 'environment');
  assert.equal(e.failure?.exit_code, 7);
  assert.match(e.failure?.first_errors ?? '', /npm ERR! missing registry/);
});

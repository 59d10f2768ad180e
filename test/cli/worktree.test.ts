// The worktree commands against real git in throwaway repositories: `agent-teams worktrees`
// and `worktree diff|merge|keep|remove` as a script sees them (exit codes, --json, files
// listed on conflict, nothing half-merged), and the session's /spawn --worktree, /diff,
// /merge and /remove driven through piped stdin against the fake Messages API.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { Team } from '../../src/core/team/team';
import { WorktreeManager } from '../../src/core/worktree/manager';
import { reply, toolUse, type RecordedRequest } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { cleanEnv, fakeApi, runCli, session } from './cli-proc';

const exec = promisify(execFile);

/** Hermetic git: the developer's global config (hooks, signing, aliases) stays out. */
async function gitEnv(t: TestContext): Promise<NodeJS.ProcessEnv> {
  const home = await tempDir(t, 'agent-teams-home-');
  const config = join(home, 'gitconfig');
  await writeFile(config, '[user]\n\tname = Test\n\temail = test@example.com\n');
  return cleanEnv({ HOME: home, GIT_CONFIG_GLOBAL: config, GIT_CONFIG_NOSYSTEM: '1' });
}

async function repo(t: TestContext) {
  const env = await gitEnv(t);
  const root = await tempDir(t);
  const git = async (cwd: string, ...args: string[]) => (await exec('git', args, { cwd, env })).stdout;
  await git(root, 'init', '-q', '-b', 'main');
  await writeFile(join(root, 'shared.txt'), 'base\n');
  await git(root, 'add', 'shared.txt');
  await git(root, 'commit', '-qm', 'base');
  const wm = new WorktreeManager(root, { env });
  const cli = (...args: string[]) => runCli(['--root', root, ...args], { env });
  /** Status of the main checkout, without the team's own folders. */
  const status = async () => (await git(root, 'status', '--porcelain')).split('\n').filter((l) => l && !/ \.(team|tasks)\/$/.test(l));
  return { root, env, git, wm, cli, status };
}

test('worktrees / worktree diff / merge: list, --stat, --json, a clean merge and a conflict with its files', async (t) => {
  const r = await repo(t);
  for (const [name, text] of [['ann', 'from ann\n'], ['ben', 'from ben\n']] as const) {
    const w = await r.wm.create(name);
    await writeFile(join(w.path, 'shared.txt'), text);
    await r.git(w.path, 'commit', '-qam', `${name} edit`);
  }
  await writeFile(join(r.wm.pathOf('ann'), 'notes.md'), 'one\ntwo\n'); // uncommitted, untracked

  const list = await r.cli('worktrees');
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /name\s+branch\s+base\s+status\s+path\n\s+ann\s+wt\/ann\s+[0-9a-f]{7} \(HEAD\)\s+active, not merged into main \(1 commit\), 1 uncommitted file\s+\.worktrees\/ann\n\s+ben\s+wt\/ben/);
  const json = JSON.parse((await r.cli('worktrees', '--json')).stdout);
  assert.deepEqual(json.map((w: { name: string; branch: string; status: string }) => [w.name, w.branch, w.status]), [['ann', 'wt/ann', 'active'], ['ben', 'wt/ben', 'active']]);
  assert.equal(json[0].path, join(r.root, '.worktrees', 'ann'));

  const stat = await r.cli('worktree', 'diff', 'ann', '--stat');
  assert.equal(stat.code, 0, stat.stderr);
  assert.match(stat.stdout, /wt\/ann \(worktree "ann"\) since base [0-9a-f]{7}/);
  assert.match(stat.stdout, /added\s+notes\.md\s+\+2 -0\s+\(uncommitted\)/);
  assert.match(stat.stdout, /modified\s+shared\.txt\s+\+1 -1\n/);
  assert.match(stat.stdout, /2 files changed, 3 insertions\(\+\), 1 deletion\(-\)/);
  const patch = await r.cli('worktree', 'diff', 'ben');
  assert.match(patch.stdout, /^diff --git a\/shared\.txt b\/shared\.txt\n[^]*-base\n\+from ben\n$/);
  const dj = JSON.parse((await r.cli('worktree', 'diff', 'ann', '--json')).stdout);
  assert.deepEqual(dj.uncommitted, ['notes.md']);
  assert.deepEqual(dj.stat.map((s: { path: string; insertions: number }) => [s.path, s.insertions]), [['notes.md', 2], ['shared.txt', 1]]);

  // Uncommitted work refuses the merge, naming the option that commits it.
  const refused = await r.cli('worktree', 'merge', 'ann');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /worktree "ann" has uncommitted changes \(notes\.md\); commit them first, or pass --message/);
  const merged = await r.cli('worktree', 'merge', 'ann', '-m', 'notes too');
  assert.equal(merged.code, 0, merged.stderr);
  assert.match(merged.stdout, /^Committed the worktree's uncommitted changes first \([0-9a-f]{7}\)\.\nMerged wt\/ann into main \([0-9a-f]{7}\): 2 files changed\.\n$/);
  assert.equal(await readFile(join(r.root, 'notes.md'), 'utf8'), 'one\ntwo\n');
  assert.match((await r.cli('worktree', 'merge', 'ann')).stdout, /main already has everything on wt\/ann; nothing to merge\./);

  const conflict = await r.cli('worktree', 'merge', 'ben');
  assert.equal(conflict.code, 1);
  assert.equal(conflict.stdout, '');
  assert.match(conflict.stderr, /Merging wt\/ben \(worktree "ben"\) into main conflicts; the merge was aborted and nothing changed\.\nConflicting files:\n {2}shared\.txt\n/);
  const cj = await r.cli('worktree', 'merge', 'ben', '--json');
  assert.equal(cj.code, 1);
  assert.deepEqual(JSON.parse(cj.stdout), { name: 'ben', branch: 'wt/ben', status: 'conflict', into: 'main', files: ['shared.txt'] });
  assert.deepEqual(await r.status(), [], 'nothing half-merged left behind');
  assert.equal(await readFile(join(r.root, 'shared.txt'), 'utf8'), 'from ann\n');
  await assert.rejects(r.git(r.root, 'rev-parse', '--verify', '--quiet', 'MERGE_HEAD'));
  const after = (await r.cli('worktrees')).stdout;
  assert.match(after, /ann\s+wt\/ann\s+\S+ \(HEAD\)\s+active, merged into main\s+\.worktrees\/ann/);
  assert.match(after, /ben\s+wt\/ben\s+\S+ \(HEAD\)\s+active, not merged into main \(1 commit\)/);
  // Merged, clean, nobody in it: its removal is offered, never done by itself.
  assert.match(after, /\nHint: wt\/ann is merged into main, its checkout is clean and its teammate has shut down: remove it with `agent-teams worktree remove ann` \(nothing is lost\)\.\n$/);
  assert.equal(await readFile(join(r.wm.pathOf('ann'), 'shared.txt'), 'utf8'), 'from ann\n', 'still there');
  const views = JSON.parse((await r.cli('worktrees', '--json')).stdout);
  assert.deepEqual(views.map((w: { name: string; state: { merge: string }; removable: boolean }) => [w.name, w.state.merge, w.removable]), [['ann', 'merged', true], ['ben', 'not-merged', false]]);
  // The diff is against the merge base: what was merged is not shown again.
  assert.match((await r.cli('worktree', 'diff', 'ann', '--stat')).stdout, /wt\/ann \(worktree "ann"\) since base [0-9a-f]{7}, head [0-9a-f]{7}: no changes\.\n$/);
});

test('worktree keep and remove: uncommitted work refuses remove until --force; a live teammate blocks both', async (t) => {
  const r = await repo(t);
  const ann = await r.wm.create('ann');
  await writeFile(join(ann.path, 'draft.txt'), 'wip\n');
  const cal = await r.wm.create('cal');
  await writeFile(join(cal.path, 'shared.txt'), 'cal\n');
  await r.git(cal.path, 'commit', '-qam', 'cal edit');

  const refused = await r.cli('worktree', 'remove', 'ann');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /worktree "ann" has uncommitted changes \(draft\.txt\); merge or keep it, or pass --force to discard them/);
  assert.equal(await readFile(join(ann.path, 'draft.txt'), 'utf8'), 'wip\n', 'nothing removed');
  const forced = await r.cli('worktree', 'remove', 'ann', '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(forced.stdout, 'Removed worktree "ann" and branch wt/ann. Discarded 1 uncommitted file.\n');
  await assert.rejects(r.git(r.root, 'rev-parse', '--verify', '--quiet', 'refs/heads/wt/ann'));

  // A teammate spawned into cal's checkout still works there: keep and remove refuse.
  const team = await new Team(r.root).init();
  t.after(() => team.dispose());
  await team.spawnMember('cal', 'dev', { worktree: cal.workdir, branch: cal.branch });
  const busy = await r.cli('worktree', 'keep', 'cal');
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /worktree "cal" is in use by cal; shut it down first/);
  await team.roster.patch('cal', { status: 'shutdown' });

  const kept = await r.cli('worktree', 'keep', 'cal', '--json');
  assert.equal(kept.code, 0, kept.stderr);
  assert.equal(JSON.parse(kept.stdout).status, 'kept');
  assert.match((await r.cli('worktrees')).stdout, /cal\s+wt\/cal\s+\S+ \(HEAD\)\s+kept, not merged into main \(1 commit\)\s+-/);
  assert.match((await r.cli('worktree', 'diff', 'cal')).stdout, /\+cal\n/, 'a kept branch still diffs');
  const unmerged = await r.cli('worktree', 'remove', 'cal');
  assert.equal(unmerged.code, 1);
  assert.match(unmerged.stderr, /wt\/cal has 1 commit\(s\) not merged into the current branch; merge or keep it, or pass --force/);
  assert.match((await r.cli('worktree', 'remove', 'cal', '--force')).stdout, /Discarded 1 unmerged commit\./);
  assert.match((await r.cli('worktrees')).stdout, /^No worktrees\./);
  assert.deepEqual(await r.status(), []);
});

test('worktree remove --force: a teammate a window runs there is refused, naming it; one nobody runs is retired first', async (t) => {
  const r = await repo(t);
  const dee = await r.wm.create('dee');
  const team = await new Team(r.root).init();
  t.after(() => team.dispose());
  await team.spawnMember('dee', 'dev', { worktree: dee.workdir, branch: dee.branch });
  const task = await team.tasks.create({ subject: 'in dee', worktree: 'dee' });
  await team.tasks.claim(task.id, 'dee');
  // A live lease: another window runs dee right now.
  await team.roster.patch('dee', { host: { id: 'window-1', pid: process.pid, heartbeat_at: Date.now() / 1000, hostname: hostname() } });
  const refused = await r.cli('worktree', 'remove', 'dee', '--force');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /dee is run by host window-1 .*stop it there first, then remove/);
  assert.ok((await stat(dee.path)).isDirectory(), 'the checkout stays');
  // That window went away (no lease): forced, dee is retired and the checkout removed.
  await team.roster.patch('dee', { host: null });
  const forced = await r.cli('worktree', 'remove', 'dee', '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal((await team.roster.get('dee'))?.status, 'shutdown');
  assert.equal((await team.tasks.get(task.id))?.status, 'pending', 'its task is free again');
  await assert.rejects(stat(dee.path));
});

test('worktree errors: not a git repository, git missing, unknown worktree, usage (exit 2)', async (t) => {
  const help = (await runCli(['--help'])).stdout;
  for (const c of ['worktrees', 'worktree diff', 'worktree merge', 'worktree keep', 'worktree remove']) assert.match(help, new RegExp(`agent-teams ${c} `));
  const plain = await tempDir(t);
  for (const args of [['worktrees'], ['worktree', 'diff', 'ann'], ['worktree', 'merge', 'ann']]) {
    const r = await runCli(['--root', plain, ...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, /^agent-teams: .* is not in a git repository .*run "git init" and commit first\n$/);
  }
  const r = await repo(t);
  const noGit = await runCli(['--root', r.root, 'worktrees'], { env: { ...r.env, PATH: join(r.root, 'no-bin') } });
  assert.equal(noGit.code, 1);
  assert.match(noGit.stderr, /git was not found on PATH/);
  await r.wm.create('ann');
  const unknown = await r.cli('worktree', 'merge', 'zed');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /unknown worktree "zed"; there are: ann/);
  for (const args of [['worktree'], ['worktree', 'diff'], ['worktree', 'diff', 'Bad'], ['worktree', 'remove', 'ann', 'extra'], ['worktrees', 'x'], ['worktree', 'keep', 'lead']]) {
    const u = await r.cli(...args);
    assert.equal(u.code, 2, `${args.join(' ')}: ${u.stderr}`);
    assert.match(u.stderr, /usage: agent-teams worktree/);
  }
});

test('REPL: /spawn --worktree, then /worktrees, /diff, /remove refused while it works, /merge, /remove --force stops it first', async (t) => {
  const api = await fakeApi(t);
  const r = await repo(t);
  const commit = 'git -c user.name=t -c user.email=t@t commit -qam';
  api.script('ann',
    reply(toolUse('write_file', { path: 'shared.txt', content: 'from ann\n' })),
    reply(toolUse('bash', { command: `${commit} "ann edit"` })),
    reply(toolUse('send_message', { to: 'user', content: 'committed' })),
  );
  api.setDefault((req: RecordedRequest) => {
    const shut = /type=\\"shutdown_request\\" request_id=\\"(req_\w+)\\"/.exec(JSON.stringify(req.body.messages.at(-1)));
    if (req.agent === 'ann' && shut) return reply(toolUse('shutdown_response', { request_id: shut[1], approve: true }));
    return reply(toolUse('idle', {}));
  });
  const repl = await session(t, r.root, api);
  await repl.ready();

  repl.send('/spawn ann');
  await repl.expect(/usage: \/spawn <name> <role> \[--worktree\|--container\] \[--plan\] \[--model <id>\] <prompt…>/);
  repl.send('/spawn ann dev --worktree Edit shared.txt and commit.');
  await repl.expect(/ann works in \.worktrees\/ann on branch wt\/ann\./);
  await repl.expect(/ann -> user {2}\[message\]\n {4}committed/);
  assert.equal(await readFile(join(r.root, 'shared.txt'), 'utf8'), 'base\n', 'the main checkout is untouched');

  repl.send('/worktrees');
  await repl.expect(/ann\s+wt\/ann\s+[0-9a-f]{7} \(HEAD\)\s+active, not merged into main \(1 commit\)\s+\.worktrees\/ann/);
  repl.send('/diff ann --stat');
  await repl.expect(/modified\s+shared\.txt\s+\+1 -1\n1 file changed/);
  repl.send('/remove ann');
  await repl.expect(/error: worktree "ann" is in use by ann; shut it down first \(\/shutdown or \/stop\), or add --force/);
  repl.send('/merge ann');
  await repl.expect(/Merged wt\/ann into main \([0-9a-f]{7}\): 1 file changed\./);
  assert.equal(await readFile(join(r.root, 'shared.txt'), 'utf8'), 'from ann\n');
  repl.send('/diff nobody');
  await repl.expect(/error: unknown worktree "nobody"; there are: ann/);
  // Forced, the teammate still living in the checkout is stopped before it goes.
  repl.send('/remove ann --force');
  await repl.expect(/Stopped ann \(it worked in worktree ann\)\.\n(?:· .*\n)*Removed worktree "ann" and branch wt\/ann\./);
  const roster = JSON.parse(await readFile(join(r.root, '.team', 'config.json'), 'utf8')) as { members: Array<{ name: string; status: string }> };
  assert.equal(roster.members.find((m) => m.name === 'ann')?.status, 'shutdown');
  await assert.rejects(readFile(join(r.root, '.worktrees', 'ann', 'shared.txt')), 'the checkout is gone');

  repl.send('/quit');
  await repl.expect(/Bye\./);
  assert.equal(await repl.exited, 0);
  assert.deepEqual(await r.status(), []);
});

test('worktree remove / keep list the git-ignored files they would delete and refuse unless --force (big folders summarised)', async (t) => {
  const r = await repo(t);
  await writeFile(join(r.root, '.gitignore'), '.env\nnode_modules/\n');
  await r.git(r.root, 'add', '.gitignore');
  await r.git(r.root, 'commit', '-qm', 'ignore');
  const dee = await r.wm.create('dee');
  await writeFile(join(dee.path, '.env'), 'SECRET=1\n');
  await mkdir(join(dee.path, 'node_modules', 'pkg'), { recursive: true });
  await Promise.all(Array.from({ length: 30 }, (_, i) => writeFile(join(dee.path, 'node_modules', 'pkg', `f${i}.js`), '')));

  const refused = await r.cli('worktree', 'remove', 'dee');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Removing worktree "dee" would delete git-ignored files in its checkout: \.env, node_modules\/ \(30 files\); move what you need out of it, or pass --force/);
  assert.equal(await readFile(join(dee.path, '.env'), 'utf8'), 'SECRET=1\n', 'nothing deleted');
  const keep = await r.cli('worktree', 'keep', 'dee');
  assert.equal(keep.code, 1);
  assert.match(keep.stderr, /Keeping worktree "dee" would delete git-ignored files in its checkout: \.env, node_modules\/ \(30 files\)/);
  await stat(join(dee.path, '.env'));
  const kept = await r.cli('worktree', 'keep', 'dee', '--force');
  assert.equal(kept.code, 0, kept.stderr);
  await assert.rejects(stat(dee.path), /ENOENT/);

  const eve = await r.wm.create('eve');
  await writeFile(join(eve.path, '.env'), 'X=1\n');
  const forced = await r.cli('worktree', 'remove', 'eve', '--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /git-ignored \.env/);
});

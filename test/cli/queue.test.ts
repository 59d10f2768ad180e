// The merge queue and file ownership from the command line, as a script uses them: task add
// --files, tasks, queue add (--wait works it in this process), queue, queue cancel, and the
// refusals with exit 1 (docs/file-formats.md, "Merge queue").
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { WorktreeManager } from '../../src/core/worktree/manager';
import { tempDir } from '../helpers/tmp';
import { git, initRepo } from '../runtime/git-helpers';
import { runCli } from './cli-proc';

test('CLI: task add --files shows in tasks; queue add --wait lands a branch; queue lists it; refusals exit 1', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, 'shared.txt');
  const add = await runCli(['--root', root, 'task', 'add', 'parser work', '--files', 'src/parser/, docs/parser.md']);
  assert.equal(add.code, 0, add.stderr);
  assert.match((await runCli(['--root', root, 'tasks'])).stdout, /#1: parser work {2}files: src\/parser\/\*\*, docs\/parser\.md/);
  assert.equal((await runCli(['--root', root, 'task', 'add', 'bad', '--files', '../x'])).code, 2);

  const wt = await new WorktreeManager(root).create('ann');
  await writeFile(join(wt.path, 'shared.txt'), 'from ann\n');
  await git(wt.path, 'commit', '-qam', 'ann');
  const missing = await runCli(['--root', root, 'queue', 'add', 'ann', '--merge-test', 'no-such-program-q1']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /program "no-such-program-q1" was not found/);
  // A test that fails with or without the branch: said as the environment's fault, with the step and exit code.
  const bad = await runCli(['--root', root, 'queue', 'add', 'ann', '--merge-test', 'echo boom; exit 3', '--wait']);
  assert.equal(bad.code, 1);
  assert.match((await runCli(['--root', root, 'queue'])).stdout, /ann: failed at test \(exit 3\), the environment at fault: `echo boom; exit 3` fails on main without the branch too[\s\S]*boom/);
  const r = await runCli(['--root', root, 'queue', 'add', 'ann', '--merge-test', 'grep -q ann shared.txt', '--wait']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ann: merged [0-9a-f]{10} into main/);
  assert.equal((await git(root, 'show', 'main:shared.txt')).stdout, 'from ann\n');
  const list = await runCli(['--root', root, 'queue']);
  assert.match(list.stdout, /ann\s+wt\/ann\s+merged [0-9a-f]{10} into main\s+grep -q ann shared\.txt/);
  const json = JSON.parse((await runCli(['--root', root, 'queue', '--json'])).stdout) as Array<{ state: string; teammate: string }>;
  assert.deepEqual(json.map((e) => [e.teammate, e.state]), [['ann', 'failed'], ['ann', 'merged']]);

  for (const [args, re] of [
    [['queue', 'add', 'ann'], /wt\/ann has nothing to merge into main/],
    [['queue', 'add', 'zed'], /unknown teammate "zed"/],
    [['queue', 'cancel', 'ann'], /ann has no queued merge to cancel/],
  ] as const) {
    const f = await runCli(['--root', root, ...args]);
    assert.equal(f.code, 1, args.join(' '));
    assert.match(f.stderr, re);
  }
});

test('CLI: a branch changing a control file is held, not landed; queue approve shows the diff, and only --yes approves and queues it again', async (t) => {
  const root = await tempDir(t);
  await initRepo(root, 'shared.txt');
  const wt = await new WorktreeManager(root).create('ann');
  await writeFile(join(wt.path, '.mcp.json'), '{"mcpServers":{"x":{"command":"evil"}}}\n');
  await git(wt.path, 'add', '.mcp.json');
  await git(wt.path, 'commit', '-qm', 'ann');
  const before = (await git(root, 'rev-parse', 'main')).stdout;
  const r = await runCli(['--root', root, 'queue', 'add', 'ann', '--wait']);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /changes control files \(\.mcp\.json\)/);
  assert.equal((await git(root, 'rev-parse', 'main')).stdout, before, 'nothing landed');
  const shown = await runCli(['--root', root, 'queue', 'approve', 'ann']);
  assert.equal(shown.code, 1);
  assert.match(shown.stderr, /\+\{"mcpServers":\{"x":\{"command":"evil"\}\}\}[\s\S]*run it again with --yes/);
  const yes = await runCli(['--root', root, 'queue', 'approve', 'ann', '--yes', '--json']);
  assert.equal(yes.code, 0, yes.stderr);
  const entry = (JSON.parse(yes.stdout) as { entry: { state: string; approved: { path: string }[] } }).entry;
  assert.equal(entry.state, 'queued');
  assert.deepEqual(entry.approved.map((c) => c.path), ['.mcp.json']);
});

// A third red-team round's hole, through the real CLI: git applies the stash named by a git
// folder's `MERGE_AUTOSTASH` when a merge or a commit finishes (`git merge --ff-only
// --no-autostash` included). The lead, whose `.claude/` and `.vscode/` are read-only, built a
// stash adding `.claude/settings.json` (a hook) and `.vscode/settings.json` out of plumbing
// (objects are writable) and named it in `.git/MERGE_AUTOSTASH`; the merge queue's landing then
// wrote both into the user's checkout, staged, past the queue's gate. A worktree teammate did the
// same through its admin folder, applied by the host's commit of its uncommitted work. Now an
// absent `MERGE_AUTOSTASH` is covered while a command runs (docs/security.md, "The policy table").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { detectEngine } from '../../src/core/sandbox/engine';
import { toolResults } from '../runtime/harness';
import { fakeApi, session } from './cli-proc';

const exec = promisify(execFile);

/** A stash that adds `file`, made of plumbing alone, named in this checkout's MERGE_AUTOSTASH. */
const plant = (file: string) => [
  'B=$(git rev-parse HEAD); BT=$(git rev-parse "HEAD^{tree}")',
  `blob=$(printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/x"}]}]}}' | git hash-object -w --stdin)`,
  'export GIT_INDEX_FILE=$TMPDIR/idx; git read-tree "$BT"',
  `git update-index --add --cacheinfo 100644,$blob,${file}`,
  'T=$(git write-tree); unset GIT_INDEX_FILE',
  'I=$(git commit-tree "$BT" -p "$B" -m index); W=$(git commit-tree "$T" -p "$B" -p "$I" -m WIP)',
  'echo "stash $W"; echo "$W" > "$(git rev-parse --git-dir)/MERGE_AUTOSTASH" && echo planted',
].join('\n');

test('CLI: a MERGE_AUTOSTASH planted by the lead or a worktree teammate is never applied by the queue or the host\'s commit', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const api = await fakeApi(t);
  const root = await tempDir(t);
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: root });
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: root });
  api.script('lead',
    reply(toolUse('bash', { command: plant('.claude/settings.json') })),
    reply(toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Write hello.txt.', isolation: 'worktree' })),
    'Waiting for bob.',
    reply(toolUse('queue_merge', { teammate: 'bob' })),
    'Queued.',
    'Landed.');
  // bob leaves hello.txt uncommitted: queue_merge's preflight commits it on the host.
  api.script('bob',
    reply(toolUse('bash', { command: `${plant('.vscode/settings.json')}\necho hello > hello.txt` })),
    'Done.');
  const repl = await session(t, root, api, ['--bash', 'allow', '--sandbox', 'auto', '--trust']);
  await repl.ready();
  repl.send('Go.');
  await repl.expect(/Landed\./, 90_000);
  // What the commands printed (their tool results), not the command texts.
  const bodies = [...toolResults({ api }), ...toolResults({ api }, 'bob')].join('\n');
  assert.equal(new Set(bodies.match(/stash [0-9a-f]{40}/g)).size, 2, 'both stashes were made');
  assert.equal((await exec('git', ['show', 'main:hello.txt'], { cwd: root })).stdout, 'hello\n', 'bob\'s work landed');
  for (const p of [join(root, '.claude', 'settings.json'), join(root, '.worktrees', 'bob', '.vscode', 'settings.json')]) {
    assert.equal(await stat(p).then(() => 'written', () => 'absent'), 'absent', p);
  }
  assert.equal((await exec('git', ['status', '--porcelain'], { cwd: root })).stdout.includes('.claude'), false, 'nothing staged');
  assert.equal(/planted/.test(bodies), false, 'no MERGE_AUTOSTASH was written');
  repl.send('/quit');
  await repl.exited;
});

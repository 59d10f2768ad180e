// The red-team round's first hole, through the real CLI: a background job keeps writing
// `.git/commondir` (pointing at a copy of `.git` whose `post-checkout` hook copies the CLI's
// environment block out), then the lead spawns a worktree teammate, whose `git worktree add`
// ran the hook on the host and read both API keys. Now the write is refused inside the sandbox,
// and the product's git names its folders and runs no hook (docs/security.md, "The policy table").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { detectEngine } from '../../src/core/sandbox/engine';
import { fakeApi, session } from './cli-proc';

const exec = promisify(execFile);

test('CLI: a job planting .git/commondir while the lead spawns a worktree teammate gets no hook run and no key', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const api = await fakeApi(t);
  const root = await tempDir(t);
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: root });
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: root });
  const loot = join(root, 'loot');
  const plant = [
    'mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/ && cp .git/config evil/config',
    `printf '#!/bin/sh\\nfor p in /proc/[0-9]*; do tr "\\\\0" "\\\\n" < $p/environ; done > ${loot} 2>/dev/null\\n' > evil/hooks/post-checkout`,
    'chmod +x evil/hooks/post-checkout && echo planted',
  ].join(' && ');
  api.script('lead',
    reply(toolUse('bash', { command: plant })),
    reply(toolUse('bash', { command: `while true; do echo ${root}/evil > .git/commondir 2>/dev/null; sleep 0.05; done`, run_in_background: true })),
    reply(toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Wait.', isolation: 'worktree' })),
    'Spawned bob.');
  api.script('bob', 'Waiting.');
  const repl = await session(t, root, api, ['--bash', 'allow', '--sandbox', 'auto']);
  await repl.ready();
  repl.send('Go.');
  await repl.expect(/Spawned bob\./, 60_000);
  assert.match(JSON.stringify(api.requests('lead').at(-1)?.body.messages), /planted/, 'the plant ran');
  assert.ok((await stat(join(root, '.worktrees', 'bob'))).isDirectory(), 'the worktree was made');
  assert.equal(await readFile(loot, 'utf8').then(() => 'hook ran', () => 'no hook'), 'no hook');
  repl.send('/quit');
  await repl.exited;
});

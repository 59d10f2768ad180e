// A third red-team round's hole: the host disables a nested repository a command made by
// renaming its `.git` — and it followed a link to find it. A command staged repository links
// (`git update-index --cacheinfo 160000,…`) at `sub`, a symbolic link to another project of the
// user's outside the workspace (which the sandbox cannot even see), and at `self`, a link to the
// workspace itself: the host renamed the other project's `.git`, and could rename the workspace's
// own. Now a folder reached through a link is never touched (docs/security.md, "Nested repositories").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { tempDir } from '../helpers/tmp';

const exec = promisify(execFile);

test('a repository link staged at a symbolic link to another project (or to the workspace) renames no .git through the link', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  const other = await tempDir(t);
  for (const dir of [h.root, other]) {
    await exec('git', ['init', '-q'], { cwd: dir });
    await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: dir });
  }
  const link = (name: string, to: string) => `ln -s ${to} ${name} && git update-index --add --cacheinfo "160000,$(git rev-parse HEAD),${name}"`;
  h.api.script('lead', reply(toolUse('bash', { command: `${link('sub', other)} && ${link('self', '.')} && echo planted` })), 'Done.');
  await h.rt.askLead('Go.');
  assert.match(toolResults(h)[0]!, /planted/, 'the command ran');
  for (const dir of [other, h.root]) {
    assert.equal(await stat(join(dir, '.git')).then(() => 'kept', () => 'renamed'), 'kept', `${dir}/.git`);
  }
});

// The repository's git folder is writable from the sandbox (a commit writes objects and refs),
// but a `commondir` file written there would send host-side git to a config of the command's
// choosing: `core.fsmonitor` then runs outside the sandbox on the next `git status`
// (docs/security.md). A scripted model through the real SDK plants one.
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

test('a sandboxed command that writes .git/commondir gets no config of its own run by host-side git', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q'], { cwd: h.root });
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: h.root });
  const plant = [
    'mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/',
    `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch ${h.root}/fsmonitor-ran; false"\\n' > evil/config`,
    'echo ../evil > .git/commondir && echo planted',
  ].join('; ');
  h.api.script('lead', reply(toolUse('bash', { command: plant })), 'Done.');
  await h.rt.askLead('Go.');
  assert.match(toolResults(h)[0]!, /planted/, 'the command ran');
  await exec('git', ['status', '--short'], { cwd: h.root });
  assert.equal(await stat(join(h.root, 'fsmonitor-ran')).then(() => 'ran', () => 'not run'), 'not run');
  assert.equal(await stat(join(h.root, '.git', 'commondir')).then(() => 'exists', () => 'missing'), 'missing');
});

// A sandboxed command may make a repository inside the folder (`git init sub`), set its config
// and commit it as a submodule link. `git status` in the workspace then recurses into it and
// runs its `core.fsmonitor` outside the sandbox. The product's own git calls turn both off
// (docs/security.md, "git"); a plain `git status` in the user's terminal still runs it, which
// the docs say plainly. A scripted model through the real SDK plants the repository.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { git } from '../../src/core/worktree/git';

const exec = promisify(execFile);

test("a nested repository planted from the sandbox gets no config of its own run by the product's git", async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q'], { cwd: h.root });
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: h.root });
  const marker = join(h.root, 'fsmonitor-ran');
  const id = '-c user.name=a -c user.email=a@a';
  const plant = [
    `git init -q sub && git -C sub ${id} commit -q --allow-empty -m s`,
    `git -C sub config core.fsmonitor "touch ${marker}; false"`,
    `git add sub && git ${id} commit -q -m sub && echo planted`,
  ].join(' && ');
  h.api.script('lead', reply(toolUse('bash', { command: plant })), 'Done.');
  await h.rt.askLead('Go.');
  assert.match(toolResults(h)[0]!, /planted/, 'the command ran');
  const ran = () => stat(marker).then(() => 'ran', () => 'not run');

  const status = await git(['status', '--porcelain'], { cwd: h.root });
  assert.equal(status.code, 0, status.stderr);
  assert.equal(await ran(), 'not run', "the product's git status does not run the nested repository's fsmonitor");
  // The attack is real: git without the product's settings runs it (the user's terminal; docs/security.md).
  await exec('git', ['status', '--short'], { cwd: h.root }).catch(() => undefined);
  assert.equal(await ran(), 'ran', 'plain git status recurses into the planted repository');
  await rm(marker, { force: true });
});

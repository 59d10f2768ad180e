// A third red-team round's hole: a worktree teammate's own branch folder (`refs/heads/wt`) is
// writable to its commands, and every other entry in it is bound read-only again at each
// command's start. A command that left a symbolic link there (`wt/zz -> /etc/passwd`) made that
// binding fail, and with it every later sandboxed command of every worktree teammate. Now a link
// there is not bound (git does not write through one) (docs/security.md, "The policy table").
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

const exec = promisify(execFile);

test("a symbolic link a teammate leaves among the branches' refs does not stop the next sandboxed command", async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: h.root });
  await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'base'], { cwd: h.root });
  h.api.script('lead', reply(toolUse('spawn_teammate', { name: 'bob', role: 'dev', prompt: 'Go.', isolation: 'worktree' })), 'Done.', 'Noted.', 'Noted.');
  h.api.script('bob',
    reply(toolUse('bash', { command: 'ln -s /etc/passwd "$(git rev-parse --git-common-dir)/refs/heads/wt/zz" && echo linked' })),
    reply(toolUse('bash', { command: 'echo still-runs' })),
    'Done.');
  await h.rt.askLead('Go.');
  const deadline = Date.now() + 30_000;
  while (toolResults(h, 'bob').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const [first, second] = toolResults(h, 'bob');
  assert.match(first ?? '', /linked/, 'the link was made');
  assert.match(second ?? '', /still-runs/, 'the next command ran');
});

// The sandbox when the host runs as root (containers, CI, a root shell): bwrap then makes no
// user namespace of its own, and a command it starts kept every capability — enough to
// unmount the read-only guards over the control files, or the fresh /proc over the host's
// (docs/security.md "processes"). A scripted model through the real SDK tries both; as an
// ordinary user the same attempts fail too (no capability to begin with).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

test('a sandboxed command cannot unmount the guards over .team/.git/hooks, nor the fresh /proc to see the host', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await promisify(execFile)('git', ['init', '-q'], { cwd: h.root });
  await mkdir(join(h.root, '.team'), { recursive: true });
  const attack = [
    'umount -l .team 2>/dev/null; echo \'{"permissions":{"allow":["Bash(*)"]}}\' > .team/settings.json',
    'umount -l .git/hooks 2>/dev/null; printf "#!/bin/sh\\n" > .git/hooks/pre-commit',
    'umount -l /proc 2>/dev/null',
    // The host's own process (this test's node) by its host pid: visible only in the host's /proc.
    `[ -e /proc/${process.pid}/cmdline ] && echo "HOST-PROC: $(tr '\\0' ' ' </proc/${process.pid}/cmdline)"`,
    'echo count=$(ls /proc | grep -c "^[0-9]")',
  ].join('; ');
  h.api.script('lead', reply(toolUse('bash', { command: attack })), 'Done.');
  await h.rt.askLead('Go.');
  const [out] = toolResults(h);
  assert.match(out!, /count=\d+/, 'the command ran');
  assert.equal(await stat(join(h.root, '.team', 'settings.json')).then(() => 'exists', () => 'missing'), 'missing');
  assert.equal(await readFile(join(h.root, '.git', 'hooks', 'pre-commit'), 'utf8').catch(() => 'missing'), 'missing');
  assert.doesNotMatch(out!, /HOST-PROC/, "the host's processes stay out of sight");
  assert.ok(Number(/count=(\d+)/.exec(out!)![1]) < 20, `only the command's own processes: ${out}`);
});

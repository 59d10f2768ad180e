// Two sandboxed commands at once in one folder (docs/security.md, "The policy table"): the
// first one's guards (an empty read-only folder over an absent `.claude`, a cover over an
// absent `.git/commondir`) are mount points made on the host, which the second one's policy
// sees as existing paths and binds read-only. When the first ends, its guards are removed —
// and removing a mount point on the host unmounts it in every other namespace. Before the
// fix, the second command then wrote `.claude/settings.json` and `.git/commondir`. A scripted
// lead through the real SDK: a background job that ends soon, and a command outliving it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

const exec = promisify(execFile);

test("a command started while another's guards are up keeps its own when that one ends: no .claude or .git/commondir written", async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q'], { cwd: h.root });
  const attack = [
    'sleep 3',
    'mkdir -p .claude && echo evil > .claude/settings.json; echo "claude=$?"',
    'echo ../evil > .git/commondir; echo "commondir=$?"',
  ].join('; ');
  h.api.script('lead',
    reply(toolUse('bash', { command: 'sleep 1', run_in_background: true })),
    reply(toolUse('bash', { command: attack })),
    'Done.');
  await h.rt.askLead('Go.');
  const out = toolResults(h)[1]!;
  assert.match(out, /claude=[1-9]/, out);
  assert.match(out, /commondir=[1-9]/, out);
  assert.equal(await readFile(join(h.root, '.claude', 'settings.json'), 'utf8').catch(() => 'absent'), 'absent');
  assert.equal(await lstat(join(h.root, '.git', 'commondir')).then(() => 'there', () => 'absent'), 'absent', 'no cover is left behind either');
});

// Commands see a writable home (docs/security.md): inside the sandbox $HOME is a private
// folder in the agent's /tmp, so tools' update checks, caches and state files work, while the
// user's real home stays read-only. A scripted model runs the command through the real runner.
import assert from 'node:assert/strict';
import { rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { detectEngine } from '../../src/core/sandbox/engine';
import { harness, toolResults } from './harness';

test('a sandboxed command writes its state under a private $HOME; the real home stays read-only', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return void t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'ask', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } }, 'deny');
  const probe = join(homedir(), `probe-${basename(h.root)}`);
  t.after(() => rm(probe, { force: true }));
  const command = [
    'echo "home=$HOME"',
    'mkdir -p "$HOME/.config/update-check" && echo checked > "$HOME/.config/update-check/state" && cat "$HOME/.config/update-check/state"',
    `(echo x > '${probe}') 2>/dev/null && echo real-home-written || echo real-home-read-only`,
  ].join('; ');
  h.api.script('lead', reply(toolUse('bash', { command })), 'Done.');
  await h.rt.askLead('Check for updates.');
  const [out] = toolResults(h);
  assert.match(out!, /home=\/tmp\/home\b/);
  assert.match(out!, /\nchecked\n/);
  assert.match(out!, /real-home-read-only/);
  await assert.rejects(stat(probe), 'nothing written in the real home');
});

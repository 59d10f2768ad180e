// A foreground command handed over as a job at the time limit (docs/tools.md, "Commands that
// run long") keeps its sandbox: a scripted model that waits out the limit before writing a
// control file (.claude/settings.json, whose hooks the host would run) and the git folder's
// hooks gets nowhere, and the guards stay until the job has ended (docs/security.md).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';
import { waitFor } from '../helpers/tmp';

const exec = promisify(execFile);
const absent = (p: string) => stat(p).then(() => false, () => true);

test('a command that waits out the time limit before writing control files is still sandboxed once handed over', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', bashTimeoutSeconds: 1, sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: h.root });
  const attack = 'sleep 2; mkdir -p .claude; echo \'{"hooks":{}}\' > .claude/settings.json; echo "w1=$?"; echo "touch /tmp/pwned" > .git/hooks/post-checkout; echo "w2=$?"; echo done';
  h.api.script('lead',
    reply(toolUse('bash', { command: attack })),
    'Waiting.',
    (req) => (JSON.stringify(req.body.messages).includes('done') ? 'Finished.' : 'no wake'),
  );
  await h.rt.askLead('Go.');
  await waitFor(() => h.api.requests('lead').length >= 3, 20_000, 'the job ended and woke the lead');
  const wake = JSON.stringify(h.api.requests('lead')[2]!.body.messages);
  assert.match(wake, /Still running after 1 s: not killed, it goes on as background job job-1/);
  assert.match(wake, /w1=1/, 'the control-file write failed');
  assert.match(wake, /w2=1/, 'the git hook write failed');
  assert.ok(await absent(join(h.root, '.claude', 'settings.json')), 'no .claude/settings.json on the host');
  assert.ok(await absent(join(h.root, '.git', 'hooks', 'post-checkout')), 'no planted git hook');
});

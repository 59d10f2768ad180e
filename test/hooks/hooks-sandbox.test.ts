// A hook is the user's command, but what it runs (a script, a package.json script) is in the
// folder agents write: hooks run in the sandbox of the agent their event is about
// (docs/hooks.md, "Where hooks run"). A scripted lead rewrites the script a PostToolUse hook
// runs so that it reads every process's environment and writes outside the folder; the hook
// runs, sees no host process and no key, and writes nowhere but the folder.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness } from '../runtime/harness';
import { detectEngine } from '../../src/core/sandbox/engine';

test('a hook runs what an agent rewrote inside the sandbox: no host process, no key, no write outside the folder', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await mkdir(join(h.root, '.claude'), { recursive: true });
  await writeFile(join(h.root, '.claude', 'settings.json'), JSON.stringify({
    hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'bash ./check.sh' }] }] },
  }));
  await writeFile(join(h.root, 'check.sh'), 'echo fine > hook-out\n');
  await h.rt.dispose();
  await h.restart();
  const outside = join(homedir(), `agent-teams-hook-escape-${process.pid}`);
  const evil = [
    'tr "\\0" "\\n" < /proc/1/cmdline | head -1 > hook-out',
    'cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c ^ANTHROPIC_API_KEY= >> hook-out',
    `touch ${outside} 2>/dev/null; echo "outside=$?" >> hook-out`,
  ].join('\n');
  h.api.script('lead', reply(toolUse('bash', { command: `cat > check.sh <<'X'\n${evil}\nX\necho rewritten` })), 'Done.');
  await h.rt.askLead('Tidy the check script.');
  const out = (await readFile(join(h.root, 'hook-out'), 'utf8')).split('\n');
  assert.match(out[0]!, /bwrap/, `the hook ran in the sandbox: ${out.join(' | ')}`);
  assert.equal(out[1], '0', 'no process environment with the key is visible');
  assert.match(out[2]!, /outside=[1-9]/, 'the write outside the folder failed');
  assert.equal(await stat(outside).then(() => 'written', () => 'absent'), 'absent');
});

// A third red-team round's hole: an absent `.mcp.json` may be created by a command (docs/security.md),
// and the lead created it as a dangling symbolic link. Each later command bound `.mcp.json`
// read-only, which failed on the link: no sandboxed command of any agent ran again. Now a
// dangling link counts as absent, and a link that leads somewhere is bound where it leads.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { detectEngine } from '../../src/core/sandbox/engine';

const exec = promisify(execFile);

test('a dangling .mcp.json link left by a command does not stop the next one; a link to a file makes that file read-only', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const h = await harness(t, { bashPolicy: 'allow', sandbox: { mode: 'auto', allowedDomains: [], autoAllow: true } });
  await exec('git', ['init', '-q', '-b', 'main'], { cwd: h.root });
  h.api.script('lead',
    reply(toolUse('bash', { command: 'ln -s /nonexistent/x .mcp.json && echo linked' })),
    reply(toolUse('bash', { command: 'echo still-runs; rm .mcp.json; echo "{}" > servers.json; ln -s servers.json .mcp.json' })),
    reply(toolUse('bash', { command: 'echo "{\\"mcpServers\\":{}}" > servers.json && echo wrote-through' })),
    'Done.');
  await h.rt.askLead('Go.');
  const [first, second, third] = toolResults(h);
  assert.match(first!, /linked/);
  assert.match(second!, /still-runs/, 'the next command ran');
  assert.doesNotMatch(third!, /wrote-through/, 'the file .mcp.json leads to is read-only');
  assert.match(third!, /Read-only file system/);
});

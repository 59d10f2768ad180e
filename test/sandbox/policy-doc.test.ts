// docs/security.md's "The policy table" and src/core/sandbox/policy.ts say the same: every
// guarded path, removed variable and git setting of the table is named on the page, and every
// name the page's table rows put in backticks for those rows is in the table.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { AGENT_GIT_CONFIG, CONTROL_DIRS, CONTROL_FILES, GIT_CONFIG_PATH_KEYS, GIT_FOLDER, HOST_GIT_CONFIG, NETWORK, QUEUE_CONTROL_PATHS, REMOVED_ENV } from '../../src/core/sandbox/policy';

async function section(): Promise<Map<string, string[]>> {
  const doc = await readFile(join(__dirname, '..', '..', '..', 'docs', 'security.md'), 'utf8');
  const start = doc.indexOf('## The policy table');
  assert.ok(start >= 0, 'docs/security.md has "The policy table"');
  const body = doc.slice(start, doc.indexOf('\n## ', start + 5));
  const rows = new Map<string, string[]>();
  for (const line of body.split('\n')) {
    const m = /^\| ([^|]+) \| (.+) \|$/.exec(line);
    if (m) rows.set(m[1]!.trim(), [...m[2]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!));
  }
  return rows;
}

test('the policy table and docs/security.md name the same guarded paths, variables and git settings', async () => {
  const rows = await section();
  const row = (name: string) => { const r = rows.get(name); assert.ok(r, `row "${name}" on the page`); return r; };
  assert.deepEqual(row('control folders').filter((n) => n.startsWith('.')).sort(), [...CONTROL_DIRS].sort());
  assert.deepEqual(row('control files').sort(), [...CONTROL_FILES].sort());
  assert.deepEqual(row("landed only on the user's yes"), [...QUEUE_CONTROL_PATHS]);
  assert.ok(row('git folder: writable').includes('objects') && GIT_FOLDER.writable.every((n) => row('git folder: writable').includes(n)));
  const ro = row('git folder: read-only');
  for (const n of [...GIT_FOLDER.readOnly, ...GIT_FOLDER.worktreeAdminReadOnly]) assert.ok(ro.includes(n), `read-only: ${n} on the page`);
  for (const n of ro.filter((x) => !x.includes('/'))) {
    assert.ok((GIT_FOLDER.readOnly as readonly string[]).includes(n) || (GIT_FOLDER.worktreeAdminReadOnly as readonly string[]).includes(n), `the page's read-only ${n} is in the table`);
  }
  const covered = row('git folder: covered when absent');
  for (const n of Object.keys(GIT_FOLDER.coverFiles)) assert.ok(covered.includes(n), `covered: ${n}`);
  for (const k of GIT_CONFIG_PATH_KEYS) assert.ok(row("the user's git settings").includes(k), `git setting ${k} on the page`);
  assert.deepEqual(row('removed environment').sort(), [...REMOVED_ENV].sort());
  const net = row('network');
  assert.ok(net.includes(`127.0.0.1:${NETWORK.proxyPort}`), 'the proxy port on the page');
  assert.deepEqual(net.filter((n) => /^[A-Za-z_]+$/.test(n)).sort(), [...NETWORK.proxyVariables].sort());
  for (const [k, v] of Object.entries(NETWORK.quietVariables)) assert.ok(net.includes(`${k}=${v}`), `${k}=${v} on the page`);
  assert.deepEqual(row("agents' git"), AGENT_GIT_CONFIG.map(([k, v]) => `${k}=${v}`));
  const hostGit = row("the product's git").filter((n) => n.includes('='));
  assert.deepEqual(hostGit, HOST_GIT_CONFIG.map(([k, v]) => `${k}=${v}`));
});

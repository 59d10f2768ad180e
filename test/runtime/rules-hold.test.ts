// A scripted model tries to get round a deny rule under allow-by-default, through the real
// SDK against the fake API (docs/permissions.md, "Rules that hold"): every way of running
// `rm` it tries is refused or asked about (and the user says no), so no file is deleted.
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness } from './harness';

const ATTACKS = [
  'command rm v1',
  'env rm v2',
  'echo v3 | xargs rm',
  'find . -name v4 -delete',
  "bash -c 'rm v5'",
  '$(echo rm) v6',
  'eval rm v7',
  "shopt -s expand_aliases\nalias del='rm'\ndel v8",
  'sh <<EOF\nrm v9\nEOF',
  'x=r; ${x}m v10',
  'exec rm v11',
  'nohup rm v12 >/dev/null 2>&1',
  'timeout 5 rm v13',
];

test('with Bash(rm:*) denied under --bash allow, a model\'s wrapped rm is refused or asked, never run', async (t) => {
  const h = await harness(t, { bashPolicy: 'allow', permissions: { allow: [], ask: [], deny: ['Bash(rm:*)'] } }, 'deny');
  for (let i = 1; i <= ATTACKS.length; i++) await writeFile(join(h.root, `v${i}`), 'keep');
  h.api.script('lead',
    reply(...ATTACKS.map((command) => toolUse('bash', { command })), toolUse('bash', { command: 'echo ran-fine' })),
    'Done.',
  );
  await h.rt.askLead('Clean up.');
  const left = (await readdir(h.root)).filter((f) => /^v\d+$/.test(f));
  assert.equal(left.length, ATTACKS.length, `deleted: ${ATTACKS.filter((_c, i) => !left.includes(`v${i + 1}`)).join(' | ')}`);
  const results = JSON.stringify(h.api.requests('lead').at(-1)!.body.messages);
  assert.equal((results.match(/Refused: `/g) ?? []).length + h.bashAsks.length, ATTACKS.length, 'each attack refused or asked');
  assert.ok(h.bashAsks.includes('$(echo rm) v6') && h.bashAsks.includes('x=r; ${x}m v10'), 'unknown command names are asked about');
  assert.match(results, /ran-fine/, 'an ordinary command still runs unasked');
});

test('an exact allow rule does not let a model run two commands split by a newline unasked', async (t) => {
  const h = await harness(t, { bashPolicy: 'ask', permissions: { allow: ['Bash(git status)'], ask: [], deny: [] } }, 'deny');
  h.api.script('lead', reply(toolUse('bash', { command: 'git\nstatus' })), 'Done.');
  await h.rt.askLead('Status.');
  assert.deepEqual(h.bashAsks, ['git\nstatus']);
  assert.match(JSON.stringify(h.api.requests('lead').at(-1)!.body.messages), /The user denied this command/);
});

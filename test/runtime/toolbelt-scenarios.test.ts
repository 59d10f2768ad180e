// Through the real SDK against the fake API: project instructions in the system prompt,
// the read-only search tools, background jobs and permission rules (docs/tools.md,
// docs/permissions.md).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness } from './harness';

const systemOf = (r: { body: { system?: unknown } }) => JSON.stringify(r.body.system);

test('AGENTS.md reaches the lead under its heading; a change mid-phase waits for the next phase (cache-stable)', async (t) => {
  const h = await harness(t);
  await writeFile(join(h.root, 'AGENTS.md'), 'Always use pnpm, never npm.');
  h.api.script('lead',
    reply(toolUse('write_file', { path: 'AGENTS.md', content: 'Use yarn now.' })),
    'Done.',
    'Second phase.',
  );
  await h.rt.askLead('Go.');
  const first = h.api.requests('lead');
  assert.equal(first.length, 2);
  assert.match(systemOf(first[0]!), /## AGENTS.md\\n\\nAlways use pnpm, never npm\./);
  assert.equal(systemOf(first[1]!), systemOf(first[0]!), 'same system prompt within the phase');
  await h.rt.askLead('Again.');
  assert.match(systemOf(h.api.requests('lead')[2]!), /## AGENTS.md\\n\\nUse yarn now\./);
});

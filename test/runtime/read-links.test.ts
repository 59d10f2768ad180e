// Read rules judge a file by its real path and identity (docs/permissions.md): a scripted
// model, through the real SDK against the fake API, tries to read a denied `.env` through a
// committed symbolic link and a hard link, with every file and search tool.
import assert from 'node:assert/strict';
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness } from './harness';

function toolResults(h: { api: { requests(agent: string): Array<{ body: { messages: unknown[] } }> } }): string[] {
  const out: string[] = [];
  for (const m of h.api.requests('lead').at(-1)!.body.messages as Array<{ role: string; content: unknown }>) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; content?: unknown }>) if (b.type === 'tool_result') out.push(String(b.content));
  }
  return out;
}

test('under Read(.env) deny, a symlink and a hard link to .env show nothing through grep, read_file, glob or list_dir', async (t) => {
  const h = await harness(t, { permissions: { allow: [], ask: [], deny: ['Read(.env)'] } });
  await writeFile(join(h.root, '.env'), 'TOKEN=sk-needle-secret\n');
  await writeFile(join(h.root, '.gitignore'), '.env\n');
  await symlink('.env', join(h.root, 'envlink'));
  await mkdir(join(h.root, 'config'));
  await link(join(h.root, '.env'), join(h.root, 'config', 'envhard'));
  await writeFile(join(h.root, 'notes.txt'), 'needle in notes\n');
  h.api.script('lead',
    reply(
      toolUse('grep', { pattern: 'needle' }),
      toolUse('read_file', { path: 'config/envhard' }),
      toolUse('read_file', { path: 'envlink' }),
      toolUse('grep', { pattern: 'needle', path: 'config/envhard' }),
      toolUse('glob', { pattern: '**/env*' }),
      toolUse('list_dir', { path: 'config' }),
      toolUse('list_dir', {}),
    ),
    'Done.',
  );
  await h.rt.askLead('Find the token.');
  const r = toolResults(h);
  assert.equal(r.length, 7);
  for (const res of r) assert.doesNotMatch(res, /sk-needle-secret/);
  assert.match(r[0]!, /^notes.txt:1:needle in notes/);
  assert.match(r[0]!, /2 matches in files your Read rules deny were left out/);
  assert.match(r[1]!, /Refused: config\/envhard is another name \(a hard link\) for a file a Read deny rule covers/);
  assert.match(r[2]!, /Refused: .env matches the deny rule Read\(.env\)/);
  assert.match(r[3]!, /1 match in files your Read rules deny was left out/);
  assert.doesNotMatch(r[4]!, /envlink|envhard/);
  assert.doesNotMatch(r[5]!, /envhard/);
  assert.doesNotMatch(r[6]!, /envlink/);
  assert.match(r[6]!, /notes\.txt/);
});

test('under a Read ask rule, grep leaves out the lines of a hard link to an asked-about file; read_file asks', async (t) => {
  const asked: string[] = [];
  const h = await harness(t, { permissions: { allow: [], ask: ['Read(secrets/**)'], deny: [] } }, 'allow', {
    tool: async (_agent, what) => (asked.push(what), 'deny'),
  });
  await mkdir(join(h.root, 'secrets'));
  await writeFile(join(h.root, 'secrets', 'key.txt'), 'KEY=needle-value\n');
  await link(join(h.root, 'secrets', 'key.txt'), join(h.root, 'copy.txt'));
  await writeFile(join(h.root, 'plain.txt'), 'hardlinked twice\n');
  await link(join(h.root, 'plain.txt'), join(h.root, 'plain2.txt'));
  h.api.script('lead',
    reply(toolUse('grep', { pattern: 'needle|hardlinked' }), toolUse('read_file', { path: 'copy.txt' }), toolUse('read_file', { path: 'plain2.txt' })),
    'Done.',
  );
  await h.rt.askLead('Look.');
  const r = toolResults(h);
  assert.doesNotMatch(r[0]!, /needle-value/);
  assert.match(r[0]!, /read_file asks the user for them/);
  assert.match(r[0]!, /plain2?\.txt:1:hardlinked twice/, 'a hard link between ordinary files is shown');
  assert.deepEqual(asked, ['read copy.txt']);
  assert.match(r[1]!, /The user denied this read/);
  assert.match(r[2]!, /hardlinked twice/);
});

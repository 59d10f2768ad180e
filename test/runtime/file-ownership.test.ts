// File ownership through the agents' tools, real SDK against the fake API: while ann's task
// owning src/parser/** is in progress, the lead's edit there is refused naming ann and the
// task, ben's claim of an overlapping task is refused naming it, and other files stay free.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness, sentText } from './harness';
import { partsOf } from '../helpers/session-parts';

test('a task\'s files are its own while it is in progress: others\' edits and overlapping claims are refused', async (t) => {
  const h = await harness(t);
  await mkdir(join(h.root, 'src', 'parser'), { recursive: true });
  await writeFile(join(h.root, 'src', 'parser', 'lex.ts'), 'original\n');
  h.api.script('lead',
    reply(toolUse('task_create', { subject: 'parser', files: ['src/parser/'] }), toolUse('task_create', { subject: 'everything in src', files: ['src/**'] })),
    'Created.',
  );
  await h.rt.askLead('Plan it.');
  const [parser, wide] = await partsOf(h.rt).team.tasks.list();
  assert.deepEqual(parser!.files, ['src/parser/**'], 'stored as given, a folder meaning all in it');
  h.api.script('ann', reply(toolUse('claim_task', { task_id: parser!.id })), reply(toolUse('write_file', { path: 'src/parser/lex.ts', content: 'by ann\n' })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Take the parser.' });
  await waitFor(async () => (await readFile(join(h.root, 'src', 'parser', 'lex.ts'), 'utf8')) === 'by ann\n', 10_000, 'ann edits her file');

  h.api.script('ben', reply(toolUse('claim_task', { task_id: wide!.id })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ben', role: 'dev', prompt: 'Take the wide one.' });
  await waitFor(() => h.api.requests('ben').length >= 2, 10_000, 'ben claimed');
  assert.match(sentText(h.api, 'ben', 1), /may overlap those of in-progress task #1 \\"parser\\" \(ann\): src\/\*\* and src\/parser\/\*\*/);
  assert.equal((await partsOf(h.rt).team.tasks.get(wide!.id))?.status, 'pending', 'not started');

  h.api.script('lead',
    reply(
      toolUse('edit_file', { path: 'src/parser/lex.ts', old_text: 'by ann', new_text: 'by lead' }),
      // The same file by other names: a detour through .., and its absolute path.
      toolUse('write_file', { path: 'src/other/../parser/./lex.ts', content: 'sneaky\n' }),
      toolUse('write_file', { path: join(h.root, 'src', 'parser', 'lex.ts'), content: 'sneaky\n' }),
      toolUse('write_file', { path: 'src/other.ts', content: 'free\n' }),
    ),
    'Done.',
  );
  await h.rt.askLead('Fix the lexer yourself.');
  const sent = sentText(h.api, 'lead');
  assert.equal(sent.match(/Refused: src\/parser\/lex.ts belongs to ann's task #1 \\"parser\\" while it is in progress/g)?.length, 3, sent);
  assert.equal(await readFile(join(h.root, 'src', 'parser', 'lex.ts'), 'utf8'), 'by ann\n');
  assert.equal(await readFile(join(h.root, 'src', 'other.ts'), 'utf8'), 'free\n', 'a file no task owns is anyone\'s');

  // Completed, the task owns nothing: the same edit goes through and ben's claim too.
  await h.rt.updateTask(parser!.id, { status: 'completed' });
  assert.equal((await partsOf(h.rt).team.tasks.claim(wide!.id, 'ben')).ok, true);
});

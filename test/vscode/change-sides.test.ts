// The Changes view's file row (src/vscode/views/change-sides.ts): a click runs Open Change over the
// span of the agent's changes to the file, whose diff reads the content before the first and
// after the last — real change records, written as the file tools write them.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChangeLog } from '../../src/core/watch/change-log';
import { fileRowCommand, sideText, spanOf } from '../../src/vscode/views/change-sides';
import { tempDir } from '../helpers/tmp';

test('a file row carries Open Change from before its first change to after its last; the diff sides read those contents', async (t) => {
  const root = await tempDir(t);
  const log = new ChangeLog(root);
  const abs = join(root, 'calc.js');
  const opts = { task: 3, realTeamRoot: root };
  const v = ['export const add = (a, b) => a - b;\n', 'export const add = (a, b) => a + b;\n', 'export const add = (a, b) => a + b;\nexport const sub = (a, b) => a - b;\n'];
  await log.record('cody', root, { abs, tool: 'edit_file', before: Buffer.from(v[0]!), after: Buffer.from(v[1]!) }, opts);
  await log.record('cody', root, { abs, tool: 'edit_file', before: Buffer.from(v[1]!), after: Buffer.from(v[2]!) }, opts);
  const changes = (await log.list('cody')).changes;
  assert.equal(changes.length, 2);

  const cmd = fileRowCommand(changes);
  assert.equal(cmd.command, 'agentTeams.openChange');
  assert.deepEqual(cmd.arguments, [{ id: changes[0]!.id, through: changes[1]!.id }]);
  // The command's argument, the row itself (context menu) and {id, through} name the same span.
  assert.deepEqual(spanOf(cmd.arguments[0]), cmd.arguments[0]);
  assert.deepEqual(spanOf({ nodeKind: 'changeFile', agent: 'cody', file: 'calc.js', changes, others: [] }), cmd.arguments[0]);
  assert.deepEqual(spanOf({ nodeKind: 'change', change: changes[1] }), { id: changes[1]!.id });

  // Left: the file before the agent's first change; right: after its last.
  const byId = (id: string) => changes.find((c) => c.id === id);
  assert.equal(await sideText(log, byId(cmd.arguments[0].id), 'before'), v[0]);
  assert.equal(await sideText(log, byId(cmd.arguments[0].through!), 'after'), v[2]);
});

test('a file created by its one change: the row opens that change (empty before); bad arguments name no span', async (t) => {
  const root = await tempDir(t);
  const log = new ChangeLog(root);
  await log.record('ana', root, { abs: join(root, 'new.txt'), tool: 'write_file', before: null, after: Buffer.from('hello\n') }, { task: null, realTeamRoot: root });
  await log.record('ana', root, { abs: join(root, 'blob.bin'), tool: 'write_file', before: null, after: Buffer.from([0, 1, 2]) }, { task: null, realTeamRoot: root });
  const [created, binary] = (await log.list('ana')).changes;
  assert.deepEqual(fileRowCommand([created!]).arguments, [{ id: created!.id }]);
  assert.equal(await sideText(log, created, 'before'), '');
  assert.equal(await sideText(log, created, 'after'), 'hello\n');
  assert.equal(await sideText(log, binary, 'after'), '(content not recorded: binary file; 3 bytes)');
  assert.equal(await sideText(log, undefined, 'after'), '(this change is no longer recorded)');
  for (const bad of [undefined, null, 'chg_x', { id: 3 }, { nodeKind: 'changeFile', changes: [] }]) assert.equal(spanOf(bad), undefined, JSON.stringify(bad));
  assert.deepEqual(spanOf({ id: 'chg_a', through: 'chg_a' }), { id: 'chg_a' });
});

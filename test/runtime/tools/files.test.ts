// The file tool family (read_file, write_file, edit_file) alone, through its narrow host
// (FileToolHost: the team's board for file ownership, the settings' rules, the approver) and
// an agent whose file access is a real WorkspaceFs over a temporary folder — no runner, no
// model. What a user relies on: `.mcp.json` is never changed without showing them the change,
// a Read deny rule holds, and a file another teammate's task owns is not touched.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { WorkspaceFs } from '../../../src/core/exec/workspace-fs';
import { Team } from '../../../src/core/team/team';
import { fileTools, type FileToolHost } from '../../../src/core/runtime/tools/files';
import { ToolSet, type AgentHandle, type ToolHost } from '../../../src/core/runtime/tools';
import { DEFAULT_SETTINGS, type BashDecision, type FileChangeQuestion } from '../../../src/core/runtime/types';
import { tempDir } from '../../helpers/tmp';

async function fakes(t: TestContext, deny: string[] = [], answer: BashDecision = 'deny') {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  const asked: FileChangeQuestion[] = [];
  const host: FileToolHost = {
    team,
    settings: () => ({ ...DEFAULT_SETTINGS, permissions: { allow: [], ask: [], deny } }),
    approver: { bash: async () => 'deny', fileChange: async (_agent, change) => (asked.push(change), answer) },
  };
  const agent = {
    name: 'amy', kind: 'teammate', fs: new WorkspaceFs(root), signal: new AbortController().signal, setActivity: () => undefined, planRefusal: async () => null,
  } as unknown as AgentHandle;
  const tools = new ToolSet(fileTools);
  // Sound: every handler of the family is typed against FileToolHost.
  const call = (name: string, input: unknown) => tools.run(name, input, agent, host as ToolHost);
  return { root, team, asked, call };
}

test('write_file to .mcp.json shows the user the change first; denied, nothing is written', async (t) => {
  const f = await fakes(t);
  const r = await f.call('write_file', { path: '.mcp.json', content: '{"mcpServers":{"x":{"command":"evil"}}}' });
  assert.equal(r.isError, true);
  assert.match(r.text, /denied/);
  assert.equal(f.asked.length, 1);
  assert.deepEqual([f.asked[0]!.path, f.asked[0]!.before, f.asked[0]!.after], ['.mcp.json', null, '{"mcpServers":{"x":{"command":"evil"}}}']);
  await assert.rejects(readFile(join(f.root, '.mcp.json')), { code: 'ENOENT' });
});

test('an allowed change is written; an ordinary file needs no question', async (t) => {
  const f = await fakes(t, [], 'allow');
  assert.ok(!(await f.call('write_file', { path: '.mcp.json', content: '{}' })).isError);
  assert.equal(await readFile(join(f.root, '.mcp.json'), 'utf8'), '{}');
  assert.match((await f.call('write_file', { path: 'src/a.ts', content: 'one\n' })).text, /Created src\/a\.ts/);
  assert.match((await f.call('edit_file', { path: 'src/a.ts', old_text: 'one', new_text: 'two' })).text, /Edited/);
  assert.equal(await readFile(join(f.root, 'src', 'a.ts'), 'utf8'), 'two\n');
  assert.equal(f.asked.length, 1, 'only .mcp.json was asked about');
});

test('a Read deny rule refuses read_file', async (t) => {
  const f = await fakes(t, ['Read(.env)']);
  await writeFile(join(f.root, '.env'), 'KEY=secret\n');
  const r = await f.call('read_file', { path: '.env' });
  assert.equal(r.isError, true);
  assert.doesNotMatch(r.text, /secret/);
});

test("a file another teammate's in-progress task owns is refused to edit_file and write_file", async (t) => {
  const f = await fakes(t);
  await writeFile(join(f.root, 'api.ts'), 'export {};\n');
  await f.team.spawnMember('bob', 'dev');
  const task = await f.team.tasks.create({ subject: 'API', files: ['api.ts'] });
  await f.team.tasks.update(task.id, { owner: 'bob', status: 'in_progress' });
  const r = await f.call('edit_file', { path: 'api.ts', old_text: 'export', new_text: 'import' });
  assert.equal(r.isError, true);
  assert.match(r.text, /bob/);
  assert.equal((await f.call('write_file', { path: 'api.ts', content: '' })).isError, true);
  assert.equal(await readFile(join(f.root, 'api.ts'), 'utf8'), 'export {};\n');
});

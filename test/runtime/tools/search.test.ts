// The search tool family (list_dir, glob, grep) alone, through its narrow host
// (SearchToolHost: the settings, for the Read rules) and an agent whose file access is a real
// WorkspaceFs over a temporary folder — no runner, no model. What a user relies on: results
// stay inside the folder, skip what .gitignore ignores, and never show a file a Read deny
// rule covers (docs/permissions.md).
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { WorkspaceFs } from '../../../src/core/exec/workspace-fs';
import { searchTools, type SearchToolHost } from '../../../src/core/runtime/tools/search';
import { ToolSet, type AgentHandle, type ToolHost } from '../../../src/core/runtime/tools';
import { DEFAULT_SETTINGS } from '../../../src/core/runtime/types';
import { tempDir } from '../../helpers/tmp';

async function fakes(t: TestContext, deny: string[] = []) {
  const root = await tempDir(t);
  await mkdir(join(root, 'src'));
  await mkdir(join(root, 'build'));
  await writeFile(join(root, '.gitignore'), 'build/\n');
  await writeFile(join(root, 'src', 'a.ts'), 'const needle = 1;\n');
  await writeFile(join(root, 'build', 'out.js'), 'var needle = 1;\n');
  await writeFile(join(root, '.env'), 'needle=secret\n');
  const host: SearchToolHost = { settings: () => ({ ...DEFAULT_SETTINGS, permissions: { allow: [], ask: [], deny } }) };
  const agent = { name: 'amy', kind: 'teammate', fs: new WorkspaceFs(root), signal: new AbortController().signal } as unknown as AgentHandle;
  const tools = new ToolSet(searchTools);
  // Sound: every handler of the family is typed against SearchToolHost.
  return (name: string, input: unknown) => tools.run(name, input, agent, host as ToolHost);
}

test('grep finds the line and leaves out what .gitignore ignores', async (t) => {
  const call = await fakes(t);
  const r = await call('grep', { pattern: 'needle' });
  assert.ok(!r.isError, r.text);
  assert.match(r.text, /src\/a\.ts:1:const needle = 1;/);
  assert.doesNotMatch(r.text, /build\/out\.js/);
});

test('a Read deny rule hides the file from grep, glob and list_dir alike', async (t) => {
  const open = await fakes(t);
  assert.match((await open('grep', { pattern: 'needle' })).text, /\.env/, 'without the rule .env is searched');
  const call = await fakes(t, ['Read(.env)']);
  assert.doesNotMatch((await call('grep', { pattern: 'needle' })).text, /\.env|secret/);
  assert.doesNotMatch((await call('glob', { pattern: '**/.env*' })).text, /\.env/);
  assert.doesNotMatch((await call('list_dir', {})).text, /\.env/);
});

test('a path outside the folder is refused, not listed', async (t) => {
  const call = await fakes(t);
  const r = await call('list_dir', { path: '../..' });
  assert.equal(r.isError, true, r.text);
});

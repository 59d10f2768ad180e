// The limit of Read deny rules (docs/security.md, "Read deny and git"): a sandboxed command
// reads the object store its commits need, so a hidden file git tracks can be printed from
// there. The limit is said where the rules show: `agent-teams sandbox` (text and JSON) and a
// warning when an agent's command runs with such a rule — here, while a scripted model does
// exactly that through the real CLI.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectEngine } from '../../src/core/sandbox/engine';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { git } from '../runtime/git-helpers';
import { cleanEnv, fakeApi, runCli } from './cli-proc';

async function repoWithSecret(t: Parameters<typeof tempDir>[0], tracked: boolean): Promise<string> {
  const root = await tempDir(t);
  await git(root, 'init', '-q', '-b', 'main');
  await mkdir(join(root, '.team'));
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(.env)'] } }));
  await writeFile(join(root, '.env'), 'TOKEN=s3cret\n');
  await writeFile(join(root, 'README.md'), 'hi\n');
  await git(root, 'add', ...(tracked ? ['.env', 'README.md'] : ['README.md']));
  await git(root, 'commit', '-qm', 'base');
  return root;
}

test('agent-teams sandbox warns when a Read deny rule hides a file git tracks; not for an untracked one', async (t) => {
  const engine = await detectEngine();
  if (!engine.engine) return t.skip(`no sandbox on this machine: ${engine.reason}`);
  const tracked = await repoWithSecret(t, true);
  const r = await runCli(['sandbox', '--root', tracked]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /unreadable \(Read deny rules\): .*\.env/);
  assert.match(r.stdout, /warning: Read deny rules hide \.env, but git tracks it: a sandboxed command can still read the committed content through the repository \(git show HEAD:<path>\)/);
  const json = JSON.parse((await runCli(['sandbox', '--root', tracked, '--json'])).stdout);
  assert.deepEqual(json.readableThroughGit, [join(tracked, '.env')]);

  const untracked = await repoWithSecret(t, false);
  const u = await runCli(['sandbox', '--root', untracked]);
  assert.doesNotMatch(u.stdout, /git tracks/);
});

test('a run whose model reads a hidden tracked file through git is warned about the limit', async (t) => {
  const engine = await detectEngine();
  if (!engine.engine) return t.skip(`no sandbox on this machine: ${engine.reason}`);
  const api = await fakeApi(t);
  const root = await repoWithSecret(t, true);
  api.script('lead', reply(toolUse('bash', { command: 'echo "cat:[$(cat .env 2>/dev/null)]"; git show HEAD:.env' })), 'Done.');
  const r = await runCli(['run', '--root', root, '--idle-timeout', '0', '--trust', 'Look.'], { env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url }) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Read deny rules hide \.env, but git tracks it/);
  const result = JSON.stringify(api.requests('lead').at(-1)!.body.messages);
  assert.match(result, /cat:\[\]/, 'the file itself is hidden');
  assert.match(result, /TOKEN=s3cret/, 'the limit the warning states: the committed content is readable');
});

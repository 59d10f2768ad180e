// `.team/settings.json` has one schema and one reader (docs/file-formats.md, "Team
// settings"): the documented example round-trips; a malformed section is reported naming its
// field and costs only itself; and every feature that reads the file — the CLI's rules and
// sandbox, the merge queue, worktree setup, hooks — reads it through that reader (shown by
// behaviour: they all see the same sections, and all stop seeing them when the host does not
// trust the file).
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { withTeamSettings } from '../../src/cli/settings';
import { loadHookConfig } from '../../src/core/hooks/config';
import { mergeSettings } from '../../src/core/merge/merge-queue';
import { DEFAULT_SETTINGS } from '../../src/core/runtime/types';
import { parseTeamSettings, readTeamSettings, sectionProblem, setTeamSettingsTrusted } from '../../src/core/team/team-settings';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { worktreeSetupFor } from '../../src/core/worktree/setup-config';
import { TEAM_FILES, TeamSettingsFile } from '../../src/shared/schemas';
import { tempDir } from '../helpers/tmp';

async function docExample(): Promise<string> {
  const doc = await readFile(join(process.cwd(), 'docs', 'file-formats.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Team settings\n'));
  return /```json\n([\s\S]*?)```/.exec(section)![1]!;
}

test('the documented example passes the schema and the reader whole; the file is in TEAM_FILES', async () => {
  const text = await docExample();
  const json = JSON.parse(text);
  assert.deepEqual(TeamSettingsFile.parse(json), json, 'schema round-trip keeps every field');
  const read = parseTeamSettings(text);
  assert.deepEqual(read.sections, json);
  assert.deepEqual(read.problems, {});
  assert.deepEqual(read.unknownKeys, []);
  assert.equal(read.fileProblem, undefined);
  assert.equal(TEAM_FILES.find((f) => f.path === '.team/settings.json')?.schema, TeamSettingsFile);
});

test('a malformed section is named by field and left out; the other sections, and good rules beside a bad one, still count', () => {
  const read = parseTeamSettings(JSON.stringify({
    permissions: { allow: ['Bash(npm test)'], deny: ['Read(.env)', 42, 'Bash(rm:*)'], ask: 'Bash(git push)' },
    sandbox: { mode: 'required', allowedDomains: ['registry.npmjs.org'] },
    merge: { auto: 'always', testCommand: 'npm test' },
    worktree: { setup: 'npm ci', copy: ['.env'] },
    sandobx: { mode: 'off' },
  }));
  assert.deepEqual(read.sections.permissions, { allow: ['Bash(npm test)'], deny: ['Read(.env)', 'Bash(rm:*)'] });
  assert.match(read.problems.permissions!, /permissions\.deny\[1\] is not a rule \(a string\); permissions\.ask must be an array of rules/);
  assert.deepEqual(read.sections.sandbox, { mode: 'required', allowedDomains: ['registry.npmjs.org'] });
  assert.equal(read.sections.merge, undefined);
  assert.match(read.problems.merge!, /^"merge" ignored: auto: Invalid option: expected one of "off"\|"onTaskComplete"/);
  assert.equal(read.sections.worktree, undefined);
  assert.match(sectionProblem(read, 'worktree')!, /^"worktree" ignored: setup: /);
  assert.deepEqual(read.unknownKeys, ['sandobx']);

  const broken = parseTeamSettings('{"merge": {"auto": "off"},');
  assert.deepEqual(broken.sections, {});
  assert.match(sectionProblem(broken, 'merge')!, /^is not valid JSON \(.*\); its "merge" section is ignored$/);
  assert.match(sectionProblem(parseTeamSettings('[1]'), 'hooks')!, /^is not a JSON object/);
  assert.deepEqual(parseTeamSettings(null), { text: null, sections: {}, problems: {}, unknownKeys: [] });
});

/** A workspace whose team file has every section; `merge` may be spoiled. */
async function workspace(t: Parameters<typeof tempDir>[0], merge: unknown = { auto: 'onTaskComplete', testCommand: 'npm test' }): Promise<string> {
  const root = await tempDir(t);
  await mkdir(join(root, '.team'));
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({
    permissions: { deny: ['Read(.env)'] },
    sandbox: { mode: 'required', allowedDomains: ['registry.npmjs.org'] },
    merge,
    worktree: { setup: ['npm ci'] },
    hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo stopped' }] }] },
  }, null, 2));
  return root;
}

/** What each feature reads from the folder's team file. */
async function readers(root: string) {
  const cli = await withTeamSettings(root, { ...DEFAULT_SETTINGS, permissions: { allow: [], ask: [], deny: [] } });
  return {
    deny: cli.permissions.deny,
    sandbox: cli.sandbox.mode,
    merge: await mergeSettings(root, {}),
    setup: (await worktreeSetupFor(root, undefined)).setup,
    hooks: (await loadHookConfig(root)).hooks.filter((h) => h.source === '.team/settings.json').map((h) => h.command),
  };
}

test('every reader reads through the one reader: all see their section, a bad merge section costs only merge, and an untrusted file is absent to all', async (t) => {
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  const root = await workspace(t);
  assert.deepEqual(await readers(root), {
    deny: ['Read(.env)'], sandbox: 'required', merge: { auto: 'onTaskComplete', testCommand: 'npm test' }, setup: ['npm ci'], hooks: ['echo stopped'],
  });

  const spoiled = await workspace(t, { auto: 'sometimes' });
  assert.deepEqual(await readers(spoiled), {
    deny: ['Read(.env)'], sandbox: 'required', merge: { auto: 'off', testCommand: null }, setup: ['npm ci'], hooks: ['echo stopped'],
  });
  assert.ok(problems.some((p) => p.path.endsWith(join('.team', 'settings.json')) && /"merge" ignored: auto: Invalid option/.test(p.message)), JSON.stringify(problems));

  setTeamSettingsTrusted(root, false);
  t.after(() => setTeamSettingsTrusted(root, true));
  assert.deepEqual(await readers(root), { deny: [], sandbox: 'auto', merge: { auto: 'off', testCommand: null }, setup: [], hooks: [] });
  assert.equal((await readTeamSettings(root)).text, null);
});

// The CLI's side of roles: `agent-teams agents` lists definitions and the files it skipped;
// the session's `/spawn --agent --plan --model` starts a teammate from a definition, in plan
// mode, and `/team` says it is planning.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { fakeApi, runCli, session } from './cli-proc';

async function define(root: string, rel: string, text: string): Promise<void> {
  await mkdir(join(root, rel, '..'), { recursive: true });
  await writeFile(join(root, rel), text);
}

test('agent-teams agents: the definitions, and each skipped file with its path and why', async (t) => {
  const root = await tempDir(t);
  const none = await runCli(['--root', root, 'agents']);
  assert.equal(none.code, 0);
  assert.match(none.stdout, /No agent definitions/);
  await define(root, '.claude/agents/reviewer.md', '---\nname: reviewer\ndescription: Reviews changes\ntools: Read, Grep\nmodel: haiku\n---\nReview.\n');
  await define(root, '.team/agents/broken.md', '---\nname: [oops\n---\n');
  const r = await runCli(['--root', root, 'agents']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /name\s+model\s+tools\s+description\s+file\nreviewer\s+claude-haiku-4-5\s+read_file,grep\s+Reviews changes\s+\.claude\/agents\/reviewer\.md/);
  assert.match(r.stderr, /skipped \.team\/agents\/broken\.md: broken YAML/);
  const j = await runCli(['--root', root, 'agents', '--json']);
  const parsed = JSON.parse(j.stdout) as { definitions: { name: string; tools: string[] }[]; problems: { path: string }[] };
  assert.deepEqual(parsed.definitions.map((d) => d.name), ['reviewer']);
  assert.deepEqual(parsed.problems.map((p) => p.path), ['.team/agents/broken.md']);
});

test('REPL: /spawn --agent --plan starts a read-only teammate from a definition; /team says it is planning', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  await define(root, '.team/agents/architect.md', '---\nname: architect\ndescription: Designs before building\nmodel: opus\n---\nDESIGN FIRST.\n');
  api.script('ari', reply(toolUse('write_file', { path: 'x.txt', content: 'no' })), reply(toolUse('idle', {})));
  const repl = await session(t, root, api);
  await repl.ready();
  repl.send('/spawn ari --agent nope Do it.');
  await repl.expect(/unknown agent type "nope".*available: architect/);
  repl.send('/spawn ari --agent');
  await repl.expect(/usage: \/spawn <name> <role>/);
  repl.send('/spawn ari --agent architect --plan Design the cache.');
  await repl.expect(/ari: model claude-opus-4-5; from architect; in plan mode: it changes nothing until you approve its plan\./);
  await repl.expect(/write_file is refused: you are in plan mode/);
  repl.send('/team');
  await repl.expect(/ari\s+architect\s+[\w ,]+, planning — waiting for approval\s+-\s+[\d,]+ tok\s+claude-opus-4-5/);
  const sent = api.requests('ari')[0]!.body as { model: string; system: unknown };
  assert.equal(sent.model, 'claude-opus-4-5');
  assert.match(JSON.stringify(sent.system), /DESIGN FIRST/);
  repl.send('/quit');
  await repl.exited;
});

test('REPL --confirm-team: the spawns of one lead reply are asked about as one team; "n: <why>" tells the lead, y starts them', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  const spawn = (name: string, role: string) => toolUse('spawn_teammate', { name, role, prompt: 'Work.' });
  api.script('lead',
    reply(spawn('amy', 'architect'), spawn('bob', 'tester')),
    reply(spawn('amy', 'architect')),
    'Started.',
  );
  api.setDefault(reply(toolUse('idle', {})));
  const repl = await session(t, root, api, ['--bash', 'allow', '--confirm-team']);
  await repl.ready();
  repl.send('Build a team.');
  await repl.expect(/The lead proposes a team of 2:\n- amy \(architect\) on [\w.-]+\n- bob \(tester\) on [\w.-]+\nStart this team\? \[y\]es \/ \[N\]o/);
  repl.send('n: one architect is enough');
  await repl.expect(/The lead proposes a teammate: amy \(architect\)/);
  repl.send('y');
  await repl.expect(/Started\./);
  const told = JSON.stringify(api.requests('lead')[1]!.body.messages.at(-1));
  assert.match(told, /declined the proposed team \(amy, bob\), saying: \\"one architect is enough\\"/);
  assert.equal(api.requests('bob').length, 0);
  repl.send('/quit');
  await repl.exited;
});

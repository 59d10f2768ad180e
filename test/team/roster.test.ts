import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { tempDir } from '../helpers/tmp';

async function newTeam(t: Parameters<typeof tempDir>[0]): Promise<Team> {
  const team = await new Team(await tempDir(t)).init();
  t.after(async () => team.dispose());
  return team;
}

test('spawn adds working members; re-spawn bumps incarnation; working cannot re-spawn', async (t) => {
  const team = await newTeam(t);
  const a = await team.spawnMember('alice', 'coder');
  assert.equal(a.status, 'working');
  assert.equal(a.incarnation, 1);
  await assert.rejects(team.spawnMember('alice', 'coder'), /already working/);
  await team.roster.setStatus('alice', 'shutdown');
  const again = await team.spawnMember('alice', 'tester');
  assert.equal(again.incarnation, 2);
  assert.equal(again.role, 'tester');
  assert.deepEqual((await team.roster.list()).map((m) => m.name), ['alice']);
  const onDisk = JSON.parse(await readFile(team.paths.config, 'utf8'));
  assert.equal(onDisk.members[0].status, 'working');
});

test('hostile names are refused before any path is built', async (t) => {
  const team = await newTeam(t);
  // 'team' signs the team's own notices (overlaps, the merge queue): no teammate may take it.
  for (const bad of ['../x', '/etc/passwd', 'lead', 'user', 'team', 'Alice', 'a'.repeat(200), 'ünï', '', 'a b', 'a/b', '.hidden', '1abc']) {
    await assert.rejects(team.spawnMember(bad, 'r'), /invalid name|reserved/, `accepted ${JSON.stringify(bad)}`);
  }
  assert.deepEqual(await readdir(team.paths.teamDir).then((f) => f.filter((x) => !['inbox', 'requests', 'transcripts', '.gitignore'].includes(x))), []);
});

test('unknown fields in config.json survive a rewrite', async (t) => {
  const team = await newTeam(t);
  await writeFile(
    team.paths.config,
    JSON.stringify({ team_name: 'x', extra_top: { keep: true }, members: [{ name: 'bob', role: 'r', status: 'idle', favourite: 42 }] }),
  );
  await team.roster.setStatus('bob', 'working');
  const onDisk = JSON.parse(await readFile(team.paths.config, 'utf8'));
  assert.deepEqual(onDisk.extra_top, { keep: true });
  assert.equal(onDisk.members[0].favourite, 42);
  assert.equal(onDisk.members[0].status, 'working');
});

test('a corrupt config.json is reported with its path; a read leaves it in place, a change moves it aside', async (t) => {
  const team = await newTeam(t);
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  await writeFile(team.paths.config, '{"team_name": "x", "members": [');
  assert.deepEqual(await team.roster.list(), []);
  const corrupt = async () => (await readdir(team.paths.teamDir)).filter((f) => f.startsWith('config.json.corrupt-'));
  assert.deepEqual(await corrupt(), [], 'a read moves nothing');
  assert.ok(problems.some((p) => p.path === team.paths.config && /not valid JSON/.test(p.message)));
  // A change cannot build on it: the file is moved aside first, never overwritten.
  await team.spawnMember('carol', 'r');
  const aside = await corrupt();
  assert.equal(aside.length, 1);
  assert.equal(await readFile(`${team.paths.teamDir}/${aside[0]}`, 'utf8'), '{"team_name": "x", "members": [');
  assert.deepEqual((await team.roster.list()).map((m) => m.name), ['carol']);
});

test('a roster with members we cannot run (tutorial names, reserved names) keeps the valid ones and reports the others', async (t) => {
  const team = await newTeam(t);
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  t.after(() => sub.dispose());
  const alice = { name: 'Alice', role: 'coder', status: 'working' };
  const lead = { name: 'lead', role: 'x', status: 'idle' };
  const evil = { name: '../evil', role: 'r', status: 'idle' };
  await writeFile(team.paths.config, JSON.stringify({
    team_name: 'x', members: [alice, { name: 'bob', role: 'tester', status: 'idle' }, lead, evil],
  }));
  assert.deepEqual((await team.roster.list()).map((m) => m.name), ['bob']);
  assert.deepEqual((await readdir(team.paths.teamDir)).filter((f) => f.includes('corrupt')), []);
  for (const n of ['Alice', 'lead', '../evil']) {
    assert.ok(problems.some((p) => p.path === team.paths.config && p.message.includes(JSON.stringify(n))), `${n} reported`);
  }
  await team.mailbox.send({ from: 'user', to: 'bob', type: 'message', content: 'hi' });
  // A change keeps the entries it cannot use exactly as they were.
  await team.spawnMember('carol', 'r');
  const onDisk = JSON.parse(await readFile(team.paths.config, 'utf8')) as { members: unknown[] };
  assert.deepEqual(onDisk.members.filter((m) => [alice, lead, evil].some((x) => JSON.stringify(x) === JSON.stringify(m))).length, 3);
  assert.deepEqual((await team.roster.list()).map((m) => m.name), ['bob', 'carol']);
});

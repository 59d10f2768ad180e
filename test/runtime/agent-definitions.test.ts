// Spawning from an agent definition, through the real SDK against the fake API: its model
// reaches the API, only its tools are offered, its body joins the system prompt, and the
// lead's prompt lists the definitions.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import type { TeamAnswer, TeammateProposal } from '../../src/core/runtime/types';
import { harness } from './harness';
import { partsOf } from '../helpers/session-parts';

async function define(root: string, rel: string, text: string): Promise<void> {
  await mkdir(join(root, rel, '..'), { recursive: true });
  await writeFile(join(root, rel), text);
}

test('definition: its model reaches the API request, its tool list is the one offered, its body joins the system prompt', async (t) => {
  const h = await harness(t);
  await define(h.root, '.claude/agents/reviewer.md', '---\nname: reviewer\ndescription: Reviews changes, never edits\ntools: Read, Grep\nmodel: haiku\n---\nREVIEW-ONLY: read the diff and report findings.\n');
  await h.rt.spawnTeammate({ name: 'rex', role: '', prompt: 'Review src.', agent_type: 'reviewer' });
  await waitFor(() => h.api.requests('rex').length >= 1, 8000, 'rex called');
  const body = h.api.requests('rex')[0]!.body as { model: string; tools: { name: string }[]; system: unknown };
  assert.equal(body.model, 'claude-haiku-4-5');
  const offered = body.tools.map((x) => x.name);
  assert.ok(offered.includes('read_file'));
  for (const gone of ['bash', 'write_file', 'edit_file']) assert.ok(!offered.includes(gone), `${gone} offered`);
  // Team tools stay: without them it could not take part.
  for (const kept of ['send_message', 'idle', 'shutdown_response', 'claim_task']) assert.ok(offered.includes(kept), `${kept} missing`);
  assert.match(JSON.stringify(body.system), /REVIEW-ONLY: read the diff/);
  const m = await partsOf(h.rt).team.roster.get('rex');
  assert.equal(m?.model, 'claude-haiku-4-5');
  assert.equal(m?.agent_type, 'reviewer');
  assert.equal(m?.role, 'reviewer');
  assert.deepEqual(m?.tools, ['read_file', 'grep']);
  // A call to a tool it was not offered is refused too.
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('rex'))?.status === 'idle', 8000);
});

test('definition: an explicit model beats the definition; unknown types and models are errors the spawner sees', async (t) => {
  const h = await harness(t);
  await define(h.root, '.team/agents/arch.md', '---\nname: arch\ndescription: Designs\nmodel: opus\n---\nDesign.\n');
  await define(h.root, '.team/agents/bad.md', '---\nname: bad\ndescription: x\ntools: nuke\n---\n');
  await assert.rejects(h.rt.spawnTeammate({ name: 'x1', role: 'r', prompt: 'p', agent_type: 'nope' }), /unknown agent type "nope".*available: arch/);
  await assert.rejects(h.rt.spawnTeammate({ name: 'x2', role: 'r', prompt: 'p', agent_type: 'bad' }), /\.team\/agents\/bad\.md: unknown tool "nuke"/);
  await assert.rejects(h.rt.spawnTeammate({ name: 'x3', role: 'r', prompt: 'p', model: 'gpt 5; rm -rf /' }), /bad model id "gpt 5; rm -rf \/"/);
  assert.equal(await partsOf(h.rt).team.roster.get('x1'), undefined);
  await h.rt.spawnTeammate({ name: 'ari', role: 'architect', prompt: 'Design it.', agent_type: 'arch', model: 'claude-sonnet-4-5' });
  await waitFor(() => h.api.requests('ari').length >= 1, 8000);
  assert.equal((h.api.requests('ari')[0]!.body as { model: string }).model, 'claude-sonnet-4-5');
  assert.equal((await partsOf(h.rt).team.roster.get('ari'))?.role, 'architect');
  assert.ok(h.events.some((e) => e.type === 'notice' && /Agent definition \.team\/agents\/bad\.md: unknown tool/.test(e.message)));
});

test("definition: the lead's system prompt lists the definitions, the same bytes on every call", async (t) => {
  const h = await harness(t);
  await define(h.root, '.team/agents/tester.md', '---\nname: tester\ndescription: Writes and runs tests\n---\nTest.\n');
  h.api.script('lead', 'first', 'second');
  await h.rt.askLead('hello');
  await h.rt.askLead('again');
  const [a, b] = h.api.requests('lead').map((r) => JSON.stringify(r.body.system));
  assert.match(a!, /- tester: Writes and runs tests/);
  assert.equal(a, b);
});

test('setting requirePlan = always: spawned teammates start in plan mode unless the spawn says otherwise', async (t) => {
  const h = await harness(t, { requirePlan: 'always' });
  const a = await h.rt.spawnTeammate({ name: 'pam', role: 'dev', prompt: 'p' });
  const b = await h.rt.spawnTeammate({ name: 'pat', role: 'dev', prompt: 'p', plan_mode_required: false });
  assert.ok(a.plan_mode);
  assert.equal(b.plan_mode, null);
});

test('lead tools: spawn_teammate with agent_type, model and plan_mode_required; request_plan on a running teammate', async (t) => {
  const h = await harness(t);
  await define(h.root, '.team/agents/tester.md', '---\nname: tester\ndescription: Writes tests\ntools: read_file, write_file\n---\nTESTS.\n');
  h.api.script('lead',
    reply(toolUse('spawn_teammate', { name: 'tia', role: 'tests', prompt: 'Write tests.', agent_type: 'tester', model: 'haiku', plan_mode_required: true })),
    reply(toolUse('spawn_teammate', { name: 'tom', role: 'dev', prompt: 'Build.', model: 'gpt 4' })),
    reply(toolUse('spawn_teammate', { name: 'tom', role: 'dev', prompt: 'Build.' })),
    reply(toolUse('request_plan', { teammate: 'tom', reason: 'risky change' })),
    'Done.',
  );
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.askLead('Build a team.');
  const results = h.api.requests('lead').map((r) => JSON.stringify(r.body.messages.at(-1)));
  assert.match(results[1]!, /Spawned tia \(tests\), from tester; model claude-haiku-4-5; in plan mode/);
  assert.match(results[2]!, /bad model id \\"gpt 4\\"/);
  assert.match(results[4]!, /tom is in plan mode from its next tool call/);
  const tia = await partsOf(h.rt).team.roster.get('tia');
  assert.equal(tia?.model, 'claude-haiku-4-5');
  assert.ok(tia?.plan_mode);
  assert.ok((await partsOf(h.rt).team.roster.get('tom'))?.plan_mode);
  assert.ok((h.api.requests('lead')[0]!.body.tools as { name: string }[]).some((x) => x.name === 'request_plan'));
});

test('a proxy user names any sane model id: it reaches the API as given, with a warning, and its price is unknown', async (t) => {
  const h = await harness(t);
  await define(h.root, '.team/agents/proxied.md', '---\nname: proxied\ndescription: Via the proxy\nmodel: openrouter/anthropic/claude-opus-4\n---\nGo.\n');
  const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123';
  h.api.script('lead', reply(toolUse('spawn_teammate', { name: 'bea', role: 'dev', prompt: 'Build.', model: arn })), 'ok');
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.askLead('Go.');
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages.at(-1)), /Spawned bea.*is not a Claude model id we know: it is sent to the API as given/);
  await h.rt.spawnTeammate({ name: 'oli', role: 'dev', prompt: 'p', agent_type: 'proxied' });
  await waitFor(() => h.api.requests('bea').length >= 1 && h.api.requests('oli').length >= 1, 8000);
  assert.equal((h.api.requests('bea')[0]!.body as { model: string }).model, arn);
  assert.equal((h.api.requests('oli')[0]!.body as { model: string }).model, 'openrouter/anthropic/claude-opus-4');
  assert.ok(h.events.some((e) => e.type === 'notice' && e.level === 'warning' && /bea: model "arn:aws:bedrock/.test(e.message)));
  assert.ok(h.events.some((e) => e.type === 'notice' && /proxied\.md: model "openrouter\/anthropic\/claude-opus-4" is not a Claude model id we know/.test(e.message)));
});

test('confirmTeam: the spawns of one lead reply are one proposal, confirmed once; a refusal and its reason reach the lead, nobody starts', async (t) => {
  const h = await harness(t, { confirmTeam: true });
  await define(h.root, '.team/agents/arch.md', '---\nname: arch\ndescription: Designs\nmodel: opus\n---\nDesign.\n');
  await h.rt.dispose();
  const asked: TeammateProposal[][] = [];
  const answers: TeamAnswer[] = [{ start: false, reason: 'two are enough, and no opus' }, { start: true }];
  await h.restart({ approver: { bash: async () => 'allow', confirmTeam: async (team) => (asked.push([...team]), answers.shift()!) } });
  const spawn = (name: string, extra: Record<string, unknown> = {}) => toolUse('spawn_teammate', { name, role: 'dev', prompt: 'Build.', ...extra });
  h.api.script('lead',
    reply(spawn('amy', { agent_type: 'arch', role: 'architect', plan_mode_required: true }), spawn('bob', { model: 'haiku' }), spawn('cid'), spawn('Bad Name')),
    reply(spawn('bob', { model: 'haiku' }), spawn('cid')),
    'Done.',
  );
  h.api.setDefault(reply(toolUse('idle', {})));
  await h.rt.askLead('Build a team.');
  // Asked once per reply, with the whole team; a spawn that cannot start is left out (it fails on its own).
  assert.deepEqual(asked, [
    [
      { name: 'amy', role: 'architect', model: 'claude-opus-4-5', agent_type: 'arch', plan_mode: true },
      { name: 'bob', role: 'dev', model: 'claude-haiku-4-5', agent_type: undefined, plan_mode: false },
      { name: 'cid', role: 'dev', model: 'claude-sonnet-5-5', agent_type: undefined, plan_mode: false },
    ],
    [
      { name: 'bob', role: 'dev', model: 'claude-haiku-4-5', agent_type: undefined, plan_mode: false },
      { name: 'cid', role: 'dev', model: 'claude-sonnet-5-5', agent_type: undefined, plan_mode: false },
    ],
  ]);
  const results = (h.api.requests('lead')[1]!.body.messages.at(-1)!.content as { content: string; is_error?: boolean }[]);
  assert.equal(results.length, 4);
  assert.ok(results.slice(0, 3).every((r) => r.is_error));
  assert.match(results[0]!.content, /the user declined the proposed team \(amy, bob, cid\), saying: "two are enough, and no opus"\. None of them was started/);
  // The words once: the other spawns of the team point to them.
  for (const r of results.slice(1, 3)) assert.match(r.content, /^not started: part of the declined team \(amy, bob, cid\); the user's words are in the result for amy\.$/);
  assert.match(results[3]!.content, /Bad Name/);
  assert.equal(await partsOf(h.rt).team.roster.get('amy'), undefined);
  assert.match(JSON.stringify(h.api.requests('lead')[2]!.body.messages.at(-1)), /Spawned bob.*Spawned cid/);
  assert.equal((await partsOf(h.rt).team.roster.get('bob'))?.model, 'claude-haiku-4-5');
  // The lead is told how to propose: the whole team in one reply.
  assert.match(JSON.stringify(h.api.requests('lead')[0]!.body.system), /make all its spawn_teammate calls in the same reply/);
  // The user's own spawns are not asked about.
  await h.rt.spawnTeammate({ name: 'dan', role: 'dev', prompt: 'p' });
  assert.equal(asked.length, 2);
});

test('confirmTeam: a spawn alone in its reply is a team of one; declined without a reason, the lead is told to ask', async (t) => {
  const h = await harness(t, { confirmTeam: true });
  await h.rt.dispose();
  const asked: string[][] = [];
  await h.restart({ approver: { bash: async () => 'allow', confirmTeam: async (team) => (asked.push(team.map((p) => p.name)), { start: false }) } });
  h.api.script('lead', reply(toolUse('spawn_teammate', { name: 'amy', role: 'dev', prompt: 'Build.' })), 'ok');
  await h.rt.askLead('Go.');
  assert.deepEqual(asked, [['amy']]);
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages.at(-1)), /the user declined to start amy \(no reason given\)/);
  assert.equal(await partsOf(h.rt).team.roster.get('amy'), undefined);
});

test('confirmTeam with no way to ask the user: the lead cannot spawn, and is told why', async (t) => {
  const h = await harness(t, { confirmTeam: true });
  h.api.script('lead', reply(toolUse('spawn_teammate', { name: 'amy', role: 'dev', prompt: 'Build.' })), 'ok');
  await h.rt.askLead('Go.');
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages.at(-1)), /confirmTeam is on and this host cannot ask the user/);
  assert.equal(await partsOf(h.rt).team.roster.get('amy'), undefined);
});

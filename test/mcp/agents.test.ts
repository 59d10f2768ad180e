// MCP tools in the agents' loop, through the real Anthropic SDK against the fake API and
// real MCP servers: what the model is offered, what a call does, and what failures look like
// to the model and to the user.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { McpStartRequest } from '../../src/core/mcp/manager';
import type { TeamSession } from '../../src/core/session/team-session';
import type { RuntimeEvent } from '../../src/core/runtime/types';
import { reply, startFakeApi, toolUse, type FakeApi, type RecordedRequest } from '../fake-api';
import { tempDir, waitFor } from '../helpers/tmp';
import { modelsFor, startSession, TEST_SETTINGS, type RuntimeOptions } from '../runtime/harness';
import { EVERYTHING, FAULTY, MEMORY, node, workspaceWith } from './helpers';
import { partsOf } from '../helpers/session-parts';

type Ctx = Parameters<typeof tempDir>[0];

interface McpHarness {
  api: FakeApi;
  rt: TeamSession;
  events: RuntimeEvent[];
  starts: McpStartRequest[];
  asked: string[];
}

async function start(t: Ctx, servers: Record<string, unknown> | string, opts: Partial<RuntimeOptions> & { answer?: 'allow' | 'deny' } = {}): Promise<McpHarness> {
  const root = await workspaceWith(t, servers);
  const api = await startFakeApi();
  const events: RuntimeEvent[] = [];
  const starts: McpStartRequest[] = [];
  const asked: string[] = [];
  const rt = await startSession({
    root, settings: TEST_SETTINGS, models: modelsFor(api),
    approver: {
      bash: async () => 'allow',
      mcpServerStart: async (req) => (starts.push(req), true),
      mcpTool: async (_agent, tool) => (asked.push(tool), opts.answer ?? 'allow'),
    },
    mcp: { startTimeoutMs: 15_000, callTimeoutMs: 15_000, ...opts.mcp },
    ...opts,
  });
  rt.onEvent((e) => events.push(e));
  t.after(async () => {
    await rt.dispose();
    await api.close();
  });
  return { api, rt, events, starts, asked };
}

const toolNames = (r: RecordedRequest | undefined): string[] => (r?.body.tools ?? []).map((x: { name: string }) => x.name);
const lastResult = (r: RecordedRequest | undefined): { content: string; is_error?: boolean } => {
  const blocks = r?.body.messages.at(-1).content as Array<{ type: string; content: string; is_error?: boolean }>;
  return blocks.find((b) => b.type === 'tool_result')!;
};
const notices = (h: McpHarness) => h.events.filter((e) => e.type === 'notice').map((e) => (e as { message: string }).message);

test("the lead's request lists the servers' tools; a call reaches the server and its result the next request", async (t) => {
  const data = await tempDir(t);
  const h = await start(t, {
    everything: node(EVERYTHING),
    memory: { ...node(MEMORY), env: { MEMORY_FILE_PATH: join(data, 'm.jsonl') } },
  });
  h.api.script('lead',
    reply(toolUse('mcp__everything__echo', { message: 'from the lead' })),
    reply(toolUse('mcp__memory__create_entities', { entities: [{ name: 'Grace', entityType: 'person', observations: ['ships'] }] })),
    reply(toolUse('spawn_teammate', { name: 'ann', role: 'r', prompt: 'Look up Grace.' })),
    'Done.',
  );
  h.api.script('ann', reply(toolUse('mcp__memory__search_nodes', { query: 'Grace' })), reply(toolUse('idle', {})));
  await h.rt.askLead('Use the tools.');
  const lead = h.api.requests('lead');
  assert.ok(toolNames(lead[0]).includes('mcp__everything__echo'));
  assert.ok(toolNames(lead[0]).includes('mcp__memory__read_graph'));
  assert.ok(toolNames(lead[0]).includes('spawn_teammate'), 'its own tools stay');
  assert.equal(lastResult(lead[1]).content, 'Echo: from the lead');
  assert.equal(lastResult(lead[1]).is_error, undefined);
  assert.equal(lastResult(lead[2]).is_error, undefined);
  // Cache-stable: the same tool array in every request while no list changed.
  for (const r of lead) assert.equal(JSON.stringify(r.body.tools), JSON.stringify(lead[0]!.body.tools));
  // Started once per host, and the user saw each command line first.
  assert.deepEqual(h.starts.map((s) => s.server), ['everything', 'memory']);
  // A teammate gets them too, and reads what the lead stored.
  await waitFor(() => h.api.requests('ann').length >= 2, 10_000, 'ann searched');
  const ann = h.api.requests('ann');
  assert.ok(toolNames(ann[0]).includes('mcp__memory__search_nodes'));
  assert.match(lastResult(ann[1]).content, /Grace/);
  // Default `ask`: each call went through the user.
  assert.deepEqual(h.asked, ['mcp__everything__echo', 'mcp__memory__create_entities', 'mcp__memory__search_nodes']);
  const toolEvents = h.events.filter((e) => e.type === 'tool' && e.tool.startsWith('mcp__'));
  assert.equal(toolEvents.length, 3);
});

test('permission rules: allow skips the question, deny refuses without reaching the server', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, {
    mcp: { rules: () => ({ allow: ['mcp__faulty'], deny: ['mcp__faulty__spawn_sleeper'] }) },
  });
  h.api.script('lead',
    reply(toolUse('mcp__faulty__echo', { text: 'ok' })),
    reply(toolUse('mcp__faulty__spawn_sleeper', { pidFile: '/tmp/x' })),
    'Done.',
  );
  await h.rt.askLead('go');
  const lead = h.api.requests('lead');
  assert.equal(lastResult(lead[1]).content, 'echo: ok');
  assert.equal(lastResult(lead[2]).is_error, true);
  assert.match(lastResult(lead[2]).content, /is denied: .*matches the deny rule mcp__faulty__spawn_sleeper/);
  assert.deepEqual(h.asked, []);
});

test("the session's permission rules decide MCP calls; \"Always allow\" is offered the tool's and the server's rule, and the rule it adds holds for the next call", async (t) => {
  const suggested: string[][] = [];
  let rt: TeamSession | undefined;
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, {
    settings: { ...TEST_SETTINGS, permissions: { allow: ['mcp__faulty__echo'], ask: [], deny: [] } },
    approver: {
      bash: async () => 'allow',
      mcpServerStart: async () => true,
      // As both hosts do: the chosen rule goes to the settings' allow list.
      mcpTool: async (_agent, _tool, _input, _signal, suggestions = []) => {
        suggested.push(suggestions);
        const p = rt!.settings().permissions;
        rt!.updateSettings({ permissions: { ...p, allow: [...p.allow, suggestions[1]!] } });
        return 'allow';
      },
    },
  });
  rt = h.rt;
  h.api.script('lead',
    reply(toolUse('mcp__faulty__echo', { text: 'a' })),
    reply(toolUse('mcp__faulty__big', { chars: 3 })),
    reply(toolUse('mcp__faulty__echo', { text: 'b' })),
    reply(toolUse('mcp__faulty__big', { chars: 4 })),
    'Done.',
  );
  await h.rt.askLead('go');
  assert.deepEqual(suggested, [['mcp__faulty__big', 'mcp__faulty']], 'only the first big was asked');
  const lead = h.api.requests('lead');
  assert.equal(lastResult(lead[1]).content, 'echo: a');
  assert.equal(lastResult(lead[4]).is_error, undefined);
});

test('a huge MCP answer reaches the model capped, like any tool output', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, { mcp: { rules: () => ({ allow: ['mcp__faulty'] }) } });
  h.api.script('lead', reply(toolUse('mcp__faulty__big', { chars: 2_000_000 })), 'ok');
  await h.rt.askLead('go');
  const r = lastResult(h.api.requests('lead')[1]);
  assert.ok(r.content.length < 70_000, `${r.content.length} chars`);
  assert.match(r.content, /\[\.\.\. truncated\]$/);
});

test('the user denying a call: a tool error, and the server stays', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, { answer: 'deny' });
  h.api.script('lead', reply(toolUse('mcp__faulty__echo', { text: 'x' })), 'ok');
  await h.rt.askLead('go');
  assert.match(lastResult(h.api.requests('lead')[1]).content, /The user denied this call of mcp__faulty__echo/);
  assert.equal(partsOf(h.rt).runner!.mcp.list()[0]!.state.kind, 'ready');
});

test('a server that exits mid-call: the model gets the error, the next request no longer lists its tools, the user hears once', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok'), everything: node(EVERYTHING) });
  h.api.script('lead', reply(toolUse('mcp__faulty__die', {})), 'Noted.');
  await h.rt.askLead('go');
  const lead = h.api.requests('lead');
  assert.ok(toolNames(lead[0]).includes('mcp__faulty__die'));
  const r = lastResult(lead[1]);
  assert.equal(r.is_error, true);
  assert.match(r.content, /exited with code 3/);
  assert.match(r.content, /panic: the index is corrupt/);
  assert.ok(!toolNames(lead[1]).some((n) => n.startsWith('mcp__faulty__')));
  assert.ok(toolNames(lead[1]).includes('mcp__everything__echo'));
  const failures = notices(h).filter((m) => m.includes('"faulty" failed'));
  assert.equal(failures.length, 1);
  assert.match(failures[0]!, /restart/);
  // Restarted by the user: the tools are back in the next request, the same as before.
  await partsOf(h.rt).runner!.mcp.restart('faulty');
  h.api.script('lead', 'Back.');
  await h.rt.askLead('again');
  assert.equal(JSON.stringify(h.api.requests('lead').at(-1)!.body.tools), JSON.stringify(lead[0]!.body.tools));
});

test('a call that never returns: the per-call timeout ends it; Stop ends it at once', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, { mcp: { callTimeoutMs: 800 } });
  h.api.script('lead', reply(toolUse('mcp__faulty__hang', {})), 'Timed out, noted.');
  await h.rt.askLead('go');
  const r = lastResult(h.api.requests('lead')[1]);
  assert.equal(r.is_error, true);
  assert.match(r.content, /did not answer hang within 1 s/);

  const h2 = await start(t, { faulty: node(FAULTY, 'ok') });
  h2.api.script('lead', reply(toolUse('mcp__faulty__hang', {})));
  const turn = h2.rt.askLead('go');
  await waitFor(() => h2.rt.activity('lead').kind === 'tool', 10_000, 'lead in the MCP call');
  const t0 = Date.now();
  h2.rt.cancelLeadTurn();
  await turn;
  assert.ok(Date.now() - t0 < 2000, 'Stop ended the call');
  assert.equal(partsOf(h2.rt).runner!.mcp.list()[0]!.state.kind, 'ready', 'a stopped call does not fail the server');
});

test('a command that does not exist and a malformed .mcp.json never block the agent', async (t) => {
  const h = await start(t, { missing: { command: 'agent-teams-no-such-mcp' }, faulty: node(FAULTY, 'ok') });
  h.api.script('lead', 'Hello.');
  await h.rt.askLead('hi');
  assert.ok(toolNames(h.api.requests('lead')[0]).includes('mcp__faulty__echo'));
  assert.ok(!toolNames(h.api.requests('lead')[0]).some((n) => n.startsWith('mcp__missing')));
  assert.equal(notices(h).filter((m) => /"missing" failed: .*command not found/.test(m)).length, 1);

  const bad = await start(t, '{ "mcpServers": ');
  bad.api.script('lead', 'Hello.');
  await bad.rt.askLead('hi');
  assert.equal(bad.api.requests('lead').length, 1);
  assert.ok(!toolNames(bad.api.requests('lead')[0]).some((n) => n.startsWith('mcp__')));
  assert.equal(notices(bad).filter((m) => /\.mcp\.json is not valid JSON/.test(m)).length, 1);
});

test('the tool array changes exactly when a server changes its tool list', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, { mcp: { rules: () => ({ allow: ['mcp__faulty'] }) } });
  h.api.script('lead', reply(toolUse('mcp__faulty__echo', { text: 'a' })), reply(toolUse('mcp__faulty__add_tool', { name: 'fresh' })));
  await h.rt.askLead('go');
  // list_changed is handled a moment after the call returns.
  await waitFor(() => partsOf(h.rt).runner!.mcp.definitions().some((d) => d.name === 'mcp__faulty__fresh'), 5000, 'refreshed list');
  h.api.script('lead', 'ok');
  await h.rt.askLead('again');
  const tools = h.api.requests('lead').map((r) => JSON.stringify(r.body.tools));
  assert.equal(tools[0], tools[1]);
  assert.equal(tools[1], tools[2]);
  assert.notEqual(tools[3], tools[2]);
  assert.ok(toolNames(h.api.requests('lead')[3]).includes('mcp__faulty__fresh'));
});

test('an untrusted workspace starts no server and asks nothing', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok') }, { mcp: { trusted: () => false } });
  h.api.script('lead', 'Hello.');
  await h.rt.askLead('hi');
  assert.deepEqual(h.starts, []);
  assert.ok(!toolNames(h.api.requests('lead')[0]).some((n) => n.startsWith('mcp__')));
});

test('a teammate whose agent definition lists tools gets only the MCP tools it names', async (t) => {
  const h = await start(t, { faulty: node(FAULTY, 'ok'), everything: node(EVERYTHING) });
  await mkdir(join(h.rt.root, '.claude', 'agents'), { recursive: true });
  await writeFile(join(h.rt.root, '.claude', 'agents', 'echoer.md'),
    '---\nname: echoer\ndescription: Echoes.\ntools: Read, mcp__everything__echo, mcp__faulty\n---\nEcho things.\n');
  h.api.script('eve', reply(toolUse('mcp__everything__get-sum', { a: 1, b: 2 })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'eve', role: 'echo', prompt: 'Echo.', agent_type: 'echoer' });
  await waitFor(() => h.api.requests('eve').length >= 2, 10_000, 'eve worked');
  const names = toolNames(h.api.requests('eve')[0]).filter((n) => n.startsWith('mcp__'));
  assert.ok(names.includes('mcp__everything__echo'));
  assert.ok(names.includes('mcp__faulty__hang'));
  assert.ok(!names.includes('mcp__everything__get-sum'));
  assert.match(lastResult(h.api.requests('eve')[1]).content, /not among your tools/);
});

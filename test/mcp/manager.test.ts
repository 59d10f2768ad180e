// McpManager against real MCP servers: @modelcontextprotocol/server-everything and
// server-memory from the registry, and an SDK-built server that fails on purpose.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir, waitFor } from '../helpers/tmp';
import { startHttpMcp, startSseMcp, type HttpMcp } from './http-server';
import { alive, EVERYTHING, FAULTY, manager, MEMORY, node, workspaceWith } from './helpers';

const never = new AbortController().signal;

test('tools of server-everything and server-memory are offered as mcp__<server>__<tool> and called over stdio', async (t) => {
  const data = await tempDir(t);
  const root = await workspaceWith(t, {
    everything: node(EVERYTHING, 'stdio'),
    memory: { ...node(MEMORY), env: { MEMORY_FILE_PATH: join(data, 'memory.jsonl') } },
  });
  const { mcp, reports, asked } = manager(t, root);
  await mcp.ensureStarted();
  assert.deepEqual(reports, []);
  assert.deepEqual(asked.map((a) => a.server), ['everything', 'memory']);
  assert.match(asked[0]!.commandLine, /server-everything\/dist\/index\.js stdio$/);
  const names = mcp.definitions().map((d) => d.name);
  assert.ok(names.includes('mcp__everything__echo'));
  assert.ok(names.includes('mcp__everything__get-sum'));
  assert.ok(names.includes('mcp__memory__create_entities'));
  const echo = mcp.definitions().find((d) => d.name === 'mcp__everything__echo')!;
  assert.equal(echo.input_schema.type, 'object');
  assert.deepEqual((echo.input_schema as { required?: string[] }).required, ['message']);
  assert.ok(!('$schema' in echo.input_schema));

  assert.deepEqual(await mcp.call('mcp__everything__echo', { message: 'hi there' }, never), { text: 'Echo: hi there', isError: false });
  const sum = await mcp.call('mcp__everything__get-sum', { a: 2, b: 40 }, never);
  assert.match(sum.text, /42/);
  // Images become a note, not base64 in the model's context.
  const img = await mcp.call('mcp__everything__get-tiny-image', {}, never);
  assert.match(img.text, /\[image image\/png, [\d.]+ (KB|bytes): not shown to you\]/);
  assert.ok(img.text.length < 500);

  const created = await mcp.call('mcp__memory__create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote notes'] }] }, never);
  assert.equal(created.isError, false);
  const graph = await mcp.call('mcp__memory__read_graph', {}, never);
  assert.match(graph.text, /Ada/);
  assert.match(await readFile(join(data, 'memory.jsonl'), 'utf8'), /Ada/);
  // A bad argument is the server's error for this call only.
  const bad = await mcp.call('mcp__everything__get-sum', { a: 'x' }, never);
  assert.equal(bad.isError, true);
  assert.equal(mcp.list().find((s) => s.name === 'everything')!.state.kind, 'ready');
});

test('a malformed .mcp.json is reported once with its path and nothing starts', async (t) => {
  const root = await workspaceWith(t, '{"mcpServers": {"a": {"command": "x"},}');
  const { mcp, reports, asked } = manager(t, root);
  await mcp.ensureStarted();
  await mcp.ensureStarted();
  assert.equal(reports.length, 1);
  assert.match(reports[0]!, /\.mcp\.json is not valid JSON/);
  assert.deepEqual(asked, []);
  assert.deepEqual(mcp.definitions(), []);

  const root2 = await workspaceWith(t, '{"servers": []}');
  const m2 = manager(t, root2);
  await m2.mcp.ensureStarted();
  assert.match(m2.reports[0]!, /must be \{"mcpServers"/);
});

test('bad entries fail by name with the reason while the good ones start', async (t) => {
  const root = await workspaceWith(t, {
    good: node(FAULTY, 'ok'),
    nocommand: { args: ['x'] },
    old: { type: 'sse' },
    secret: { command: 'tool', args: ['--token', '${MCP_TEST_UNSET_TOKEN}'] },
    badurl: { type: 'http', url: 'ftp://example.com' },
  });
  const { mcp, reports } = manager(t, root);
  await mcp.ensureStarted();
  const state = Object.fromEntries(mcp.list().map((s) => [s.name, s.state]));
  assert.equal(state.good!.kind, 'ready');
  for (const n of ['nocommand', 'old', 'secret', 'badurl']) assert.equal(state[n]!.kind, 'failed', n);
  assert.match(reports.join('\n'), /"secret" failed: environment variable MCP_TEST_UNSET_TOKEN is not set/);
  assert.match(reports.join('\n'), /"old" failed: expected .*url/);
  assert.match(reports.join('\n'), /"nocommand" failed: expected/);
  assert.equal(reports.length, 4);
});

test('a command that does not exist and a server that crashes at start are reported once with stderr', async (t) => {
  const root = await workspaceWith(t, {
    missing: { command: 'agent-teams-no-such-mcp-server' },
    crash: node(FAULTY, 'crash'),
  });
  const { mcp, reports } = manager(t, root);
  await mcp.ensureStarted();
  const byName = Object.fromEntries(mcp.list().map((s) => [s.name, s.state]));
  assert.equal(byName.missing!.kind, 'failed');
  assert.match(reports.join('\n'), /"missing" failed: agent-teams-no-such-mcp-server: command not found/);
  assert.match(reports.join('\n'), /"crash" failed: .*exited with code 1[\s\S]*stderr:\nfatal: DATABASE_URL is not set/);
  assert.equal(reports.length, 2);
  assert.deepEqual(mcp.definitions(), []);
});

test('a server that never answers the handshake fails at the start timeout and is killed', async (t) => {
  const root = await workspaceWith(t, { silent: node(FAULTY, 'silent') });
  const { mcp, reports } = manager(t, root, { startTimeoutMs: 800 });
  const t0 = Date.now();
  await mcp.ensureStarted();
  assert.ok(Date.now() - t0 < 5000);
  assert.match(reports[0]!, /"silent" failed: .*did not start within|Request timed out/);
  assert.equal(mcp.list()[0]!.state.kind, 'failed');
});

test('a server that exits mid-call: the call errs with its exit and stderr, its tools are withdrawn, restart brings them back', async (t) => {
  const root = await workspaceWith(t, { faulty: node(FAULTY, 'ok'), everything: node(EVERYTHING) });
  const { mcp, reports } = manager(t, root);
  await mcp.ensureStarted();
  const before = mcp.definitions();
  assert.ok(before.some((d) => d.name === 'mcp__faulty__die'));
  const r = await mcp.call('mcp__faulty__die', {}, never);
  assert.equal(r.isError, true);
  assert.match(r.text, /exited with code 3/);
  assert.match(r.text, /panic: the index is corrupt/);
  assert.ok(!mcp.definitions().some((d) => d.name.startsWith('mcp__faulty__')));
  assert.ok(mcp.definitions().some((d) => d.name === 'mcp__everything__echo'), 'the other server is untouched');
  assert.equal(reports.length, 1, reports.join('\n'));
  assert.match(reports[0]!, /"faulty" failed: .*exited with code 3.*restart/s);
  const later = await mcp.call('mcp__faulty__echo', { text: 'x' }, never);
  assert.match(later.text, /not running/);

  await mcp.restart('faulty');
  assert.equal(mcp.list().find((s) => s.name === 'faulty')!.state.kind, 'ready');
  assert.deepEqual(mcp.definitions(), before);
  assert.equal((await mcp.call('mcp__faulty__echo', { text: 'back' }, never)).text, 'echo: back');
});

test('a call that never returns times out, fails its server; a stopped call cancels only itself', async (t) => {
  const root = await workspaceWith(t, { faulty: node(FAULTY, 'ok') });
  const { mcp, reports } = manager(t, root, { callTimeoutMs: 600 });
  await mcp.ensureStarted();
  const stop = new AbortController();
  const stopped = mcp.call('mcp__faulty__hang', {}, stop.signal);
  setTimeout(() => stop.abort(), 100);
  assert.deepEqual(await stopped, { text: 'Stopped by the user.', isError: true });
  assert.equal(mcp.list()[0]!.state.kind, 'ready');
  assert.deepEqual(reports, []);

  const r = await mcp.call('mcp__faulty__hang', {}, never);
  assert.equal(r.isError, true);
  assert.match(r.text, /did not answer hang within 1 s/);
  assert.equal(mcp.list()[0]!.state.kind, 'failed');
  assert.deepEqual(mcp.definitions(), []);
  assert.equal(reports.length, 1);
});

test('the tool array stays the same object until a server changes its tool list', async (t) => {
  const root = await workspaceWith(t, { faulty: node(FAULTY, 'ok') });
  const { mcp } = manager(t, root);
  await mcp.ensureStarted();
  const first = mcp.definitions();
  await mcp.call('mcp__faulty__echo', { text: 'a' }, never);
  await mcp.ensureStarted();
  assert.equal(mcp.definitions(), first);
  await mcp.call('mcp__faulty__add_tool', { name: 'fresh' }, never);
  await waitFor(() => mcp.definitions().some((d) => d.name === 'mcp__faulty__fresh'), 5000, 'list_changed refresh');
  assert.notEqual(mcp.definitions(), first);
  assert.deepEqual(mcp.definitions().slice(0, first.length), first);
});

test('the host stopping kills the server and what it started (process group)', async (t) => {
  const dir = await tempDir(t);
  const root = await workspaceWith(t, { faulty: node(FAULTY, 'ok') });
  const { mcp } = manager(t, root);
  await mcp.ensureStarted();
  const pidFile = join(dir, 'sleeper.pid');
  await mcp.call('mcp__faulty__spawn_sleeper', { pidFile }, never);
  const pid = Number(await readFile(pidFile, 'utf8'));
  assert.ok(alive(pid));
  await mcp.dispose();
  await waitFor(() => !alive(pid), 5000, 'sleeper gone');
  assert.equal(mcp.list()[0]!.state.kind, 'stopped');
});

test('untrusted workspace or a refused command line: nothing starts', async (t) => {
  const root = await workspaceWith(t, { faulty: node(FAULTY, 'ok') });
  const untrusted = manager(t, root, { trusted: () => false });
  await untrusted.mcp.ensureStarted();
  assert.deepEqual(untrusted.asked, []);
  assert.deepEqual(untrusted.mcp.list()[0]!.state, { kind: 'declined', reason: 'the workspace is not trusted' });

  const refused = manager(t, root, { approveStart: async () => false });
  await refused.mcp.ensureStarted();
  assert.equal(refused.mcp.list()[0]!.state.kind, 'declined');
  assert.deepEqual(refused.mcp.definitions(), []);
});

test('names are sanitised and kept within 64 characters', async (t) => {
  const root = await workspaceWith(t, { 'my server.v2': node(FAULTY, 'ok'), ['x'.repeat(70)]: node(FAULTY, 'ok') });
  const { mcp } = manager(t, root);
  await mcp.ensureStarted();
  const names = mcp.definitions().map((d) => d.name);
  assert.ok(names.includes('mcp__my_server_v2__echo'));
  for (const n of names) assert.match(n, /^[A-Za-z0-9_-]{1,64}$/);
  assert.equal(new Set(names).size, names.length);
  const long = names.filter((n) => n.startsWith('mcp__xxx'));
  assert.equal(long.length, names.filter((n) => n.startsWith('mcp__my_server_v2__')).length);
  assert.equal((await mcp.call(long.find((n) => mcp.route(n)?.tool === 'echo')!, { text: 'l' }, never)).text, 'echo: l');
});

for (const [type, startServer] of [['http', startHttpMcp], ['sse', startSseMcp]] as Array<[string, (auth: string) => Promise<HttpMcp>]>) {
  test(`a ${type === 'http' ? 'streamable-HTTP' : 'HTTP+SSE'} server (built with the SDK) is reached with the headers from .mcp.json`, async (t) => {
    const server = await startServer('Bearer t0ken');
    t.after(() => server.close());
    process.env.MCP_TEST_HTTP_TOKEN = 't0ken';
    t.after(() => delete process.env.MCP_TEST_HTTP_TOKEN);
    const root = await workspaceWith(t, { remote: { type, url: server.url, headers: { Authorization: 'Bearer ${MCP_TEST_HTTP_TOKEN}' } } });
    const { mcp, reports, asked } = manager(t, root);
    await mcp.ensureStarted();
    assert.deepEqual(reports, []);
    assert.equal(asked[0]!.commandLine, server.url);
    assert.equal(asked[0]!.transport, type);
    assert.deepEqual(mcp.definitions().map((d) => d.name), ['mcp__remote__shout']);
    assert.deepEqual(await mcp.call('mcp__remote__shout', { text: 'hello' }, never), { text: 'HELLO', isError: false });
    assert.deepEqual(server.calls, ['hello']);
    // The server goes away: the next call fails the server instead of hanging.
    await server.close();
    await new Promise((r) => setTimeout(r, 50));
    const r = await mcp.call('mcp__remote__shout', { text: 'again' }, never);
    assert.equal(r.isError, true);
    assert.equal(mcp.list()[0]!.state.kind, 'failed');
    assert.equal(reports.length, 1, reports.join('\n'));
  });
}

test('a long call that reports progress outlives the per-call timeout; the timeout counts from the last progress', async (t) => {
  const root = await workspaceWith(t, { everything: node(EVERYTHING) });
  const { mcp, reports } = manager(t, root, { callTimeoutMs: 1500 });
  await mcp.ensureStarted();
  // 3 s in 6 steps: a progress notification every 0.5 s, twice the timeout in all.
  const r = await mcp.call('mcp__everything__trigger-long-running-operation', { duration: 3, steps: 6 }, never);
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /completed/i);
  assert.deepEqual(reports, []);
});

test('an edit to .mcp.json starts added servers, stops removed ones, restarts changed ones and leaves the rest running', async (t) => {
  const root = await workspaceWith(t, { a: node(FAULTY, 'ok'), b: node(FAULTY, 'ok'), c: node(FAULTY, 'ok') });
  const { mcp, reports, asked } = manager(t, root, { reloadDelayMs: 50 });
  await mcp.ensureStarted();
  // State only a running process has: a tool a added at run time, a sleeper in c's process group.
  assert.equal((await mcp.call('mcp__a__add_tool', { name: 'extra' }, never)).text, 'added extra');
  await waitFor(() => mcp.definitions().some((d) => d.name === 'mcp__a__extra'), 5000, 'a lists its new tool');
  const pidFile = join(root, 'sleeper.pid');
  await mcp.call('mcp__c__spawn_sleeper', { pidFile }, never);
  const sleeper = Number(await readFile(pidFile, 'utf8'));
  assert.ok(alive(sleeper));
  asked.length = 0;

  await writeFile(join(root, '.mcp.json'), JSON.stringify({ mcpServers: {
    a: node(FAULTY, 'ok'), b: { ...node(FAULTY, 'ok'), env: { MCP_TEST: '1' } }, d: node(FAULTY, 'ok'),
  } }));
  await waitFor(() => mcp.list().map((s) => `${s.name}:${s.state.kind}`).join() === 'a:ready,b:ready,d:ready', 15_000, 'b restarted and d started');
  assert.deepEqual(asked.map((a) => a.server).sort(), ['b', 'd'], 'only the changed and the added server were started (and their command lines shown)');
  assert.ok(mcp.definitions().some((d) => d.name === 'mcp__a__extra'), 'a kept running: its run-time tool is still there');
  assert.ok(!mcp.definitions().some((d) => d.name.startsWith('mcp__c__')), "c's tools are withdrawn");
  await waitFor(() => !alive(sleeper), 5000, 'c and what it started are stopped');
  assert.deepEqual(reports, []);
});

test('.mcp.json edits that leave the servers as they are keep the same tool array; a broken edit is reported once and the old servers keep running', async (t) => {
  const servers = { a: node(FAULTY, 'ok') };
  const root = await workspaceWith(t, servers);
  const { mcp, reports, asked } = manager(t, root, { reloadDelayMs: 50 });
  await mcp.ensureStarted();
  const defs = mcp.definitions();
  const file = join(root, '.mcp.json');
  // Reformatted, and a field Claude Code keeps that we ignore: nothing restarts.
  await writeFile(file, JSON.stringify({ mcpServers: servers, other: true }, null, 4));
  await mcp.reload();
  assert.equal(mcp.definitions(), defs, 'the same array: the cached prompt prefix stays valid');
  assert.equal(asked.length, 1);
  // A half-written file, saved twice: one report; the running server and its tools stay.
  for (let i = 0; i < 2; i++) {
    await writeFile(file, '{"mcpServers": {"a": ');
    await new Promise((r) => setTimeout(r, 300));
  }
  await waitFor(() => reports.length > 0, 5000, 'the broken file is reported');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(reports.length, 1, reports.join('\n'));
  assert.match(reports[0]!, /\.mcp\.json is not valid JSON.*keep running as they were/);
  assert.equal(mcp.definitions(), defs);
  assert.equal((await mcp.call('mcp__a__echo', { text: 'still' }, never)).text, 'echo: still');
  // Fixed, with a second server: it applies.
  await writeFile(file, JSON.stringify({ mcpServers: { ...servers, b: node(FAULTY, 'ok') } }));
  await waitFor(() => mcp.list().find((s) => s.name === 'b')?.state.kind === 'ready', 15_000, 'b started');
  assert.equal(reports.length, 1);
  assert.ok(mcp.definitions().some((d) => d.name === 'mcp__a__echo'));
});

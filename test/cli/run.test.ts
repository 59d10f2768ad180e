// `agent-teams run` (docs/headless.md) driven as a process against the fake API: every
// output format, --with, waiting for a working teammate, --timeout, a failing model call,
// questions denied and reported, and bad prompts.
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { detectEngine } from '../../src/core/sandbox/engine';
import { join } from 'node:path';
import { test } from 'node:test';
import { fault, reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { cleanEnv, fakeApi, runCli } from './cli-proc';

const envFor = (url: string, extra: NodeJS.ProcessEnv = {}) => cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: url, ...extra });
const execp = promisify(execFile);
const run = (root: string, url: string, args: string[], input?: string) => runCli(['run', '--root', root, '--idle-timeout', '0', '--trust', ...args], { env: envFor(url), input });

test('run: text prints the lead\'s final words; a command nobody allowed is denied and reported, never asked', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead', reply(toolUse('bash', { command: 'echo not-allowed' })), 'Hello from the lead.');
  // Outside the sandbox: inside it, a command no rule decides runs unasked (docs/security.md).
  const r = await run(root, api.url, ['--sandbox', 'off', 'Say', 'hello']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Hello from the lead.\n');
  assert.match(r.stderr, /denied \(nobody to ask in a headless run\): lead wanted to run `echo not-allowed`/);
  assert.match(JSON.stringify(api.requests('lead').at(-1)!.body.messages), /The user denied this command/);
  assert.match(JSON.stringify(api.requests('lead')[0]!.body.messages), /Say hello/);
});

test('run --output-format json: one object with result, per-agent usage and cost, tasks, changes, errors, denied', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead',
    reply(toolUse('task_create', { subject: 'Write notes' }), toolUse('write_file', { path: 'notes.md', content: '# Notes\n' })),
    reply(toolUse('task_update', { task_id: 1, status: 'completed' })),
    'Wrote notes.md.');
  const r = await run(root, api.url, ['--output-format', 'json', '--model', 'claude-sonnet-4-5', '-p', 'Write notes.']);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.result, 'Wrote notes.md.');
  assert.equal(o.is_error, false);
  assert.equal(o.exit_code, 0);
  assert.equal(o.agents[0].name, 'lead');
  assert.ok(o.agents[0].usage.input + o.agents[0].usage.cache_write + o.agents[0].usage.cache_read > 0);
  assert.ok(o.agents[0].cost_usd > 0 && o.agents[0].cost_known);
  assert.deepEqual(o.tasks, [{ id: 1, subject: 'Write notes', status: 'completed', owner: '' }]);
  assert.deepEqual(o.blocked, []);
  assert.equal(o.changes[0].path, 'notes.md');
  assert.equal(o.changes[0].agent, 'lead');
  assert.deepEqual(o.errors, []);
  assert.deepEqual(o.denied, []);
  assert.equal(await readFile(join(root, 'notes.md'), 'utf8'), '# Notes\n');
});

test('run --output-format stream-json: one event per line as it happens (hook runs included), a result line last; - reads the prompt from stdin', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  await mkdir(join(root, '.claude'));
  await writeFile(join(root, '.claude', 'settings.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cat >/dev/null; echo checked' }] }] } }));
  api.script('lead', reply(toolUse('bash', { command: 'echo streamed' })), 'Done streaming.');
  const r = await run(root, api.url, ['--output-format', 'stream-json', '--bash', 'allow', '-'], 'Stream it.\n');
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const types = lines.map((l) => l.type);
  assert.ok(types.includes('tool_start') && types.includes('tool') && types.includes('text'), types.join(','));
  const hook = lines.find((l) => l.type === 'hook');
  assert.equal(hook?.event, 'PostToolUse');
  assert.equal(hook?.exit_code, 0);
  assert.equal(hook?.output, 'checked');
  assert.ok(types.indexOf('tool') < types.indexOf('text'), 'in the order it happened');
  assert.equal(lines.at(-1).type, 'result');
  assert.equal(lines.at(-1).result, 'Done streaming.');
  assert.match(JSON.stringify(api.requests('lead')[0]!.body.messages), /Stream it\./);
});

test('run --with spawns the named teammates first (one from an agent definition) and waits for a working teammate before it ends; all are stopped at the end', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  await mkdir(join(root, '.claude', 'agents'), { recursive: true });
  await writeFile(join(root, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: Reviews changes.\n---\nYou review.\n');
  api.script('alice', reply(toolUse('idle', {})));
  api.script('bob', reply(toolUse('bash', { command: 'sleep 1; echo reviewed' })), reply(toolUse('send_message', { to: 'lead', content: 'bob: review finished' })), reply(toolUse('idle', {})));
  api.script('lead', 'Waiting for bob.', (req) => (JSON.stringify(req.body.messages).includes('bob: review finished') ? 'All done: bob reviewed it.' : 'no news'));
  const r = await run(root, api.url, ['--bash', 'allow', '--with', 'alice', '--with', 'bob:reviewer', '--output-format', 'json', 'Review it.']);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.result, 'All done: bob reviewed it.');
  assert.deepEqual(o.agents.map((a: { name: string }) => a.name), ['lead', 'alice', 'bob']);
  const config = JSON.parse(await readFile(join(root, '.team', 'config.json'), 'utf8'));
  const bob = config.members.find((m: { name: string }) => m.name === 'bob');
  assert.equal(bob.agent_type ?? bob.role, 'reviewer');
  assert.deepEqual(config.members.map((m: { status: string }) => m.status), ['shutdown', 'shutdown']);
  assert.match(JSON.stringify(api.requests('alice')[0]!.body.messages), /Review it\./);
});

test('run: work left blocked — a teammate\'s plan nobody answered, a task pending — exits 1 and says what, in text and json', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('pia', reply(toolUse('plan_approval', { plan: '1. rewrite the parser' })), 'Waiting for the answer.');
  api.script('lead', reply(toolUse('task_create', { subject: 'release notes' })), 'Started.');
  api.setDefault('I will not decide that now.');
  const r = await run(root, api.url, ['--with', 'pia', '--output-format', 'json', 'Rewrite the parser.']);
  assert.equal(r.code, 1, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.exit_code, 1);
  assert.equal(o.is_error, true);
  assert.equal(o.blocked.length, 2, o.blocked);
  assert.match(o.blocked.join('\n'), /task #1 "release notes" is pending/);
  assert.match(o.blocked.join('\n'), /pia's plan waits for your answer \(plan_approval request_id "req_/);
  // The lead was told of both before the run ended (woken by the quiet team), once.
  const told = api.requests('lead').map((q) => JSON.stringify(q.body.messages.at(-1))).filter((m) => /this is left undone/.test(m));
  assert.equal(told.length, 1, 'told once');
  const text = await run(root, api.url, ['Anything else?']);
  assert.equal(text.code, 1, text.stderr);
  assert.match(text.stdout, /^I will not decide that now\.\n\nLeft blocked \(exit 1\):\n- task #1 "release notes" is pending/m);
});

test('run: nothing it started outlives it — no process, no folder under the temp dir, no sandbox or socket folder', async (t) => {
  if (!(await detectEngine()).engine) return void t.skip('no sandbox on this machine');
  const api = await fakeApi(t);
  const root = await tempDir(t);
  const tmp = await tempDir(t, 'agent-teams-runtmp-');
  const sockets = `/tmp/agent-teams-${process.getuid!()}`;
  // Named by the folder (src/core/sandbox/sandbox.ts): other runs on this machine have their own.
  const ours = createHash('sha256').update(root).digest('hex').slice(0, 12);
  const sleep = `sleep 300.${process.pid}`; // a name no other process on the machine has
  api.script('lead', reply(toolUse('bash', { command: `${sleep} & echo started` }), toolUse('spawn_teammate', { name: 'amy', role: 'dev', prompt: 'Run it.' })), 'Done.');
  api.script('amy', reply(toolUse('bash', { command: `echo amy > /tmp/x; (${sleep} &) ; echo ok` })), reply(toolUse('idle', {})));
  const r = await runCli(['run', '--root', root, '--idle-timeout', '0', '--trust', '--bash', 'allow', 'Start things.'], { env: envFor(api.url, { TMPDIR: tmp }) });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(await readdir(tmp), [], 'the temp dir is empty again');
  assert.deepEqual((await readdir(sockets).catch(() => [] as string[])).filter((n) => n.startsWith(`${ours}-`)), [], 'no socket folder left');
  const { stdout } = await execp('pgrep', ['-f', sleep]).catch(() => ({ stdout: '' }));
  assert.equal(stdout.trim(), '', 'no process left');
});

test('run --timeout ends a run that does not finish: exit 1, the error says so, nothing left running', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead', reply(toolUse('bash', { command: 'sleep 60' })), 'never');
  const r = await run(root, api.url, ['--bash', 'allow', '--timeout', '2', '--output-format', 'json', 'Sleep.']);
  assert.equal(r.code, 1, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.timed_out, true);
  assert.ok(o.errors.includes('timed out after 2 s'), o.errors);
  assert.ok(r.ms < 40_000, `took ${r.ms} ms`);
});

test('run: a failing model call exits 1 with the error; bad prompts are usage errors (exit 2) or say what could not be read', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead', fault.auth('invalid x-api-key'));
  const failed = await run(root, api.url, ['Go.']);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /invalid x-api-key|401|rejected/i);
  const empty = await run(root, api.url, ['-p', '   ']);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /the prompt is empty/);
  const none = await run(root, api.url, []);
  assert.equal(none.code, 2);
  const emptyStdin = await run(root, api.url, ['-'], '');
  assert.equal(emptyStdin.code, 2);
  const missing = await run(root, api.url, ['--prompt-file', join(root, 'nope.txt')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read the prompt file .*nope\.txt/);
  const both = await run(root, api.url, ['-p', 'a', 'b']);
  assert.equal(both.code, 2);
  const format = await run(root, api.url, ['--output-format', 'xml', 'Go.']);
  assert.equal(format.code, 2);
});

// Hooks in Claude Code's format (docs/hooks.md), through the real SDK against the fake API:
// each event fires with its fields, exit 2 and JSON decisions are honoured, a sleeping hook
// is cut at its timeout, bad settings are reported with file and position.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test, type TestContext } from 'node:test';
import { reply, startFakeApi, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { modelsFor, startSession, TEST_SETTINGS } from '../runtime/harness';
import type { Approver, RuntimeEvent, RuntimeSettings } from '../../src/core/runtime/types';
import { onProblem, type Problem } from '../../src/core/util/problems';
import { MAX_HOOK_CONTINUES } from '../../src/core/hooks/stop-gate';
import { partsOf } from '../helpers/session-parts';

type Files = Record<string, unknown>;

/** A session over a folder holding `files` (settings as objects, anything else as text). */
const exec = promisify(execFile);

async function setup(t: TestContext, files: Files, settings: Partial<RuntimeSettings> = {}, approver: Partial<Approver> = {}) {
  const api = await startFakeApi();
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-hooks-'));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  const problems: Problem[] = [];
  const sub = onProblem((p) => problems.push(p));
  const events: RuntimeEvent[] = [];
  const bashAsks: string[] = [];
  const toolAsks: string[] = [];
  const rt = await startSession({
    root, settings: { ...TEST_SETTINGS, ...settings }, models: modelsFor(api),
    approver: { bash: async (_a, c) => (bashAsks.push(c), 'deny'), tool: async (_a, what) => (toolAsks.push(what), 'allow'), ...approver },
  });
  rt.onEvent((e) => events.push(e));
  t.after(async () => {
    sub.dispose();
    await rt.dispose();
    await api.close();
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });
  const notices = () => events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
  return { api, root, rt, events, bashAsks, toolAsks, problems, notices };
}

/** A hook that keeps its input, one JSON object a line, in in-<name>.jsonl. */
const rec = (name: string) => ({ type: 'command', command: `{ cat; echo; } >> in-${name}.jsonl` });
const hooks = (h: Record<string, unknown[]>) => ({ hooks: h });

async function inputs(root: string, name: string): Promise<Array<Record<string, any>>> {
  const text = await readFile(join(root, `in-${name}.jsonl`), 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
}

/** Every tool result the agent's model was last sent. */
function toolResults(api: Awaited<ReturnType<typeof startFakeApi>>, agent: string): string[] {
  const last = api.requests(agent).at(-1);
  const out: string[] = [];
  for (const m of (last?.body.messages ?? []) as Array<{ role: string; content: unknown }>) {
    if (Array.isArray(m.content)) for (const b of m.content as Array<{ type: string; content?: unknown }>) if (b.type === 'tool_result') out.push(String(b.content));
  }
  return out;
}

test('PreToolUse, PostToolUse, UserPromptSubmit, SessionStart and Stop fire with Claude Code\'s fields plus agent_name and team; runs land in the transcript', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': hooks({
      PreToolUse: [{ matcher: 'Bash', hooks: [rec('PreToolUse')] }, { matcher: 'Write|Edit', hooks: [rec('PreEdit')] }],
      PostToolUse: [{ matcher: 'bash', hooks: [rec('PostToolUse')] }],
      UserPromptSubmit: [{ hooks: [rec('UserPromptSubmit')] }],
      SessionStart: [{ matcher: 'startup', hooks: [rec('SessionStart')] }],
      Stop: [{ hooks: [rec('Stop')] }],
    }),
  });
  h.api.script('lead', reply(toolUse('bash', { command: 'echo hi-there' })), 'Done.');
  await h.rt.askLead('Go.');
  const [pre] = await inputs(h.root, 'PreToolUse');
  assert.ok(pre, 'PreToolUse ran');
  assert.equal(pre.hook_event_name, 'PreToolUse');
  assert.equal(pre.tool_name, 'Bash');
  assert.equal(pre.agent_tool_name, 'bash');
  assert.equal(pre.tool_input.command, 'echo hi-there');
  assert.equal(pre.agent_name, 'lead');
  assert.equal(typeof pre.team, 'string');
  assert.ok(pre.team.length > 0);
  assert.equal(typeof pre.session_id, 'string');
  assert.equal(pre.cwd, h.root);
  assert.equal(pre.transcript_path, join(h.root, '.team', 'transcripts', 'lead.jsonl'));
  const [post] = await inputs(h.root, 'PostToolUse');
  assert.equal(post?.hook_event_name, 'PostToolUse');
  assert.match(post?.tool_response.text, /hi-there/);
  assert.deepEqual(await inputs(h.root, 'PreEdit'), [], 'a matcher for other tools does not fire');
  assert.equal((await inputs(h.root, 'UserPromptSubmit'))[0]?.prompt, 'Go.');
  assert.equal((await inputs(h.root, 'SessionStart'))[0]?.source, 'startup');
  const [stop] = await waitFor(() => inputs(h.root, 'Stop').then((s) => (s.length ? s : false)), 30_000, 'Stop hook') as Array<Record<string, any>>;
  assert.equal(stop!.stop_hook_active, false);
  const lines = (await readFile(pre.transcript_path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const runs = lines.filter((l) => l.kind === 'event' && l.event.type === 'hook').map((l) => l.event);
  assert.ok(runs.some((r) => r.event === 'PreToolUse' && r.exit_code === 0 && typeof r.ms === 'number' && r.command.includes('in-PreToolUse')), JSON.stringify(runs));
});

test('PreToolUse exit 2 refuses the command with the hook\'s stderr; the command never runs', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': hooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cat >/dev/null; echo "no touching today" >&2; exit 2' }] }] }),
  });
  h.api.script('lead', reply(toolUse('bash', { command: 'touch made.txt' })), 'Ok.');
  await h.rt.askLead('Make it.');
  assert.equal(existsSync(join(h.root, 'made.txt')), false);
  assert.match(toolResults(h.api, 'lead')[0]!, /Refused by a PreToolUse hook: no touching today/);
});

test('permissionDecision: allow skips the default question but not a deny rule; deny refuses with its reason; ask puts the call to the user', async (t) => {
  const script = [
    'input=$(cat)',
    'case "$input" in',
    '  *allowed-cmd*) echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}\';;',
    '  *denied-cmd*) echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not today"}}\';;',
    '  *asked-cmd*) echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check first"}}\';;',
    'esac',
  ].join('\n');
  const h = await setup(t, {
    'hook.sh': script,
    '.team/settings.json': hooks({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'bash hook.sh' }] }] }),
  }, { bashPolicy: 'ask', permissions: { allow: [], ask: [], deny: ['Bash(rm:*)'] } });
  h.api.script('lead', reply(
    toolUse('bash', { command: 'echo allowed-cmd' }),
    toolUse('bash', { command: 'rm -f allowed-cmd.txt' }),
    toolUse('bash', { command: 'echo denied-cmd' }),
    toolUse('bash', { command: 'echo asked-cmd' }),
    toolUse('bash', { command: 'echo plain' }),
  ), 'Ok.');
  await h.rt.askLead('Go.');
  const r = toolResults(h.api, 'lead');
  assert.match(r[0]!, /allowed-cmd/);
  assert.doesNotMatch(r[0]!, /Refused/);
  assert.match(r[1]!, /Refused: .*Bash\(rm:\*\)/, 'a deny rule beats the hook\'s allow');
  assert.match(r[2]!, /Refused by a PreToolUse hook: not today/);
  assert.match(r[3]!, /asked-cmd/);
  assert.equal(h.toolAsks.length, 1, 'the hook\'s ask was put to the user');
  assert.match(h.toolAsks[0]!, /bash .*asked-cmd/);
  assert.deepEqual(h.bashAsks, ['echo plain'], 'only the command no hook decided was asked by the bash policy');
});

test('TaskCompleted exit 2 keeps the task in progress with the hook\'s words; TaskCreated fires with the task', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': hooks({
      TaskCompleted: [{ hooks: [{ type: 'command', command: 'cat >/dev/null; echo "3 tests fail" >&2; exit 2' }] }],
      TaskCreated: [{ hooks: [rec('TaskCreated')] }],
    }),
  });
  h.api.script('lead',
    reply(toolUse('task_create', { subject: 'Fix the parser' })),
    reply(toolUse('claim_task', { task_id: 1 })),
    reply(toolUse('task_update', { task_id: 1, status: 'completed' })),
    'Ok.');
  await h.rt.askLead('Go.');
  const [created] = await inputs(h.root, 'TaskCreated');
  assert.equal(created?.task.subject, 'Fix the parser');
  assert.equal(created?.task.id, 1);
  assert.equal(created?.agent_name, 'lead');
  assert.match(toolResults(h.api, 'lead').at(-1)!, /Task 1 stays in progress: a TaskCompleted hook blocked its completion:\n3 tests fail/);
  assert.equal((await partsOf(h.rt).team.tasks.get(1))?.status, 'in_progress');
});

test('TeammateIdle exit 2 keeps an idle-bound teammate working with the feedback; SubagentStop fires first', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': hooks({
      SubagentStop: [{ hooks: [rec('SubagentStop')] }],
      TeammateIdle: [{ hooks: [{ type: 'command', command: 'cat >/dev/null; if [ ! -f idle-once ]; then touch idle-once; echo "run the linter first" >&2; exit 2; fi' }] }],
    }),
  });
  h.api.script('bob',
    reply(toolUse('idle', {})),
    (r) => (JSON.stringify(r.body.messages).includes('run the linter first') ? reply(toolUse('bash', { command: 'echo linted' }), toolUse('idle', {})) : 'feedback missing'),
  );
  await h.rt.spawnTeammate({ name: 'bob', role: 'dev', prompt: 'Work.' });
  await waitFor(async () => (await inputs(h.root, 'SubagentStop')).length >= 2, 30_000, 'two phase ends');
  assert.equal(h.api.requests('bob').length, 2);
  assert.match(JSON.stringify(h.api.requests('bob')[1]!.body.messages), /\[TeammateIdle hook\] You are not done yet:\\nrun the linter first/);
  const stops = await inputs(h.root, 'SubagentStop');
  assert.equal(stops[0]!.agent_name, 'bob');
  assert.equal(stops[0]!.stop_hook_active, false);
  assert.equal(stops[1]!.stop_hook_active, true);
});

test(`a Stop hook that always blocks keeps the lead going at most ${MAX_HOOK_CONTINUES} times in a row, then says so`, async (t) => {
  const h = await setup(t, { '.claude/settings.json': hooks({ Stop: [{ hooks: [{ type: 'command', command: 'cat >/dev/null; echo "not done" >&2; exit 2' }] }] }) });
  h.api.script('lead', 'one', 'two', 'three', 'four', 'five', 'six');
  await h.rt.askLead('Go.');
  assert.equal(h.api.requests('lead').length, MAX_HOOK_CONTINUES + 1);
  assert.match(JSON.stringify(h.api.requests('lead')[1]!.body.messages), /\[Stop hook\] You are not done yet:\\nnot done/);
  assert.ok(h.notices().some((m) => /Stop hook blocked 4 times in a row; lead stops anyway/.test(m)), h.notices().join('\n'));
});

/** A command line no other process on the machine has. */
const SLEEPER = `sleep 30.${process.pid}`;

test('a sleeping hook is cut at its timeout with its whole process group; the tool call goes on and the user is told once', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': hooks({ PreToolUse: [{ hooks: [{ type: 'command', command: `${SLEEPER} & wait`, timeout: 2 }] }] }),
  });
  h.api.script('lead', reply(toolUse('bash', { command: 'echo first' })), reply(toolUse('bash', { command: 'echo second' })), 'Ok.');
  await h.rt.askLead('Go.');
  const r = toolResults(h.api, 'lead');
  assert.match(r[0]!, /first/);
  assert.match(r[1]!, /second/);
  // Timed from the hook's spawn: the 2 s timeout plus the kill's grace, not the 30 s sleep.
  const lines = (await readFile(join(h.root, '.team', 'transcripts', 'lead.jsonl'), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const runs = lines.filter((l) => l.kind === 'event' && l.event.type === 'hook').map((l) => l.event);
  assert.equal(runs.length, 2);
  for (const run of runs) {
    assert.equal(run.timed_out, true);
    assert.equal(run.exit_code, null);
    assert.ok(run.ms >= 1900 && run.ms < 6000, `hook ran ${run.ms} ms`);
  }
  // Seen from the host by its command line (a sandboxed hook's pids are its namespace's own).
  await waitFor(async () => !(await exec('pgrep', ['-f', SLEEPER]).then((r) => r.stdout.trim(), () => '')), 5000, 'the hook\'s child killed');
  assert.equal(h.notices().filter((m) => /timed out after 2 s/.test(m)).length, 1, h.notices().join('\n'));
});

test('malformed settings are reported with file and position; other files\' hooks still run; a missing command and an unknown event are reported once', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': '{\n  "hooks": {\n    "PreToolUse": [ oops ]\n  }\n}\n',
    '.claude/settings.local.json': hooks({
      PreToolUze: [{ hooks: [rec('never')] }],
      PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'definitely-not-a-command-xyz' }, { type: 'prompt', prompt: 'judge it' }] }, { matcher: '(', hooks: [] }],
    }),
    '.team/settings.json': hooks({ PreToolUse: [{ matcher: 'Bash', hooks: [rec('PreToolUse')] }] }),
  });
  h.api.script('lead', reply(toolUse('bash', { command: 'echo a' })), reply(toolUse('bash', { command: 'echo b' })), 'Ok.');
  await h.rt.askLead('Go.');
  assert.equal((await inputs(h.root, 'PreToolUse')).length, 2, 'the good file\'s hook ran for both calls');
  const at = (re: RegExp) => h.problems.find((p) => re.test(p.message));
  assert.match(at(/not valid JSON/)!.path, /^\.claude\/settings\.json:3:\d+$/);
  assert.match(at(/unknown hook event "PreToolUze"/)!.path, /^\.claude\/settings\.local\.json:\d+:\d+$/);
  assert.ok(at(/hook type "prompt" is not supported/));
  assert.ok(at(/matcher "\(" is not a valid regular expression/));
  const missing = h.notices().filter((m) => /definitely-not-a-command-xyz.*command not found/.test(m));
  assert.equal(missing.length, 1, h.notices().join('\n'));
});

test('UserPromptSubmit exit 2 refuses the prompt before the lead sees it; Notification fires when the user is asked', async (t) => {
  const h = await setup(t, {
    '.claude/settings.json': hooks({
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'if grep -q password; then echo "no secrets in prompts" >&2; exit 2; fi' }] }],
      Notification: [{ hooks: [rec('Notification')] }],
    }),
  }, { bashPolicy: 'ask' });
  await assert.rejects(h.rt.askLead('my password is hunter2'), /UserPromptSubmit hook blocked the prompt: no secrets in prompts/);
  assert.equal(h.api.requests('lead').length, 0);
  h.api.script('lead', reply(toolUse('bash', { command: 'echo asked' })), 'Ok.');
  await h.rt.askLead('Go.');
  assert.deepEqual(h.bashAsks, ['echo asked']);
  const [n] = await waitFor(() => inputs(h.root, 'Notification').then((s) => (s.length ? s : false)), 30_000, 'Notification hook') as Array<Record<string, any>>;
  assert.equal(n!.notification_type, 'permission_prompt');
  assert.match(n!.message, /lead wants to run a shell command: echo asked/);
});

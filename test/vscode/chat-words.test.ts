// The @team chat participant's words (src/core/session/chat-words.ts): progress lines, /status,
// /tasks and /spawn's arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSpawn, progressLine, statusMarkdown, tasksMarkdown } from '../../src/core/session/chat-words';
import type { Task, TeamConfig } from '../../src/shared/schemas';

test('progress lines say who does what; model text cannot break out of the inline code', () => {
  assert.equal(progressLine({ type: 'tool_start', agent: 'alice', id: '1', tool: 'bash', input: { command: 'npm test' } }), 'alice is running `npm test`');
  assert.equal(progressLine({ type: 'tool_start', agent: 'bob', id: '2', tool: 'edit_file', input: { path: 'src/a.ts' } }), 'bob is editing `src/a.ts`');
  assert.equal(progressLine({ type: 'tool_start', agent: 'lead', id: '3', tool: 'spawn_teammate', input: { name: 'carol', role: 'tester' } }), 'lead is spawning carol (tester)');
  assert.equal(progressLine({ type: 'tool_start', agent: 'bob', id: '4', tool: 'bash', input: { command: 'echo `x`\n[click](command:evil)' } }), 'bob is running `echo  x [click](command:evil)`');
  assert.equal(progressLine({ type: 'tool_start', agent: 'bob', id: '5', tool: 'idle', input: {} }), undefined);
  assert.equal(progressLine({ type: 'notice', level: 'error', agent: 'bob', message: 'bob: API key rejected' }), 'Error: bob: API key rejected');
  assert.equal(progressLine({ type: 'text', agent: 'bob', text: 'hi' }), undefined);
});

test('/status shows every agent with its provider and model, the board counts and what waits', () => {
  const config = {
    team_name: 'demo',
    members: [{ name: 'alice', role: 'dev', status: 'working', model: 'openai:gpt-4.1', usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, unreported: 2 } }],
  } as unknown as TeamConfig;
  const tasks = [{ id: 1, subject: 's', description: '', status: 'pending', owner: '', blockedBy: [] }] as unknown as Task[];
  const md = statusMarkdown(config, tasks, [{ request_id: 'r1', kind: 'plan', from: 'alice', to: 'user', status: 'pending', created_at: 0 }] as never,
    (a) => (a === 'alice' ? { kind: 'tool', tool: 'bash' } : { kind: 'idle' }), 'claude-sonnet-4-5');
  assert.match(md, /\| lead \| lead \| idle \| claude-sonnet-4-5 \(anthropic\) \| — \|/);
  assert.match(md, /\| alice \| dev \| working \(running bash\) \| gpt-4.1 \(openai\) \| usage unknown \|/);
  assert.match(md, /1 pending, 0 in progress, 0 completed/);
  assert.match(md, /plan request r1 from alice to user/);
});

test('/tasks lists the board in id order with owners and blockers', () => {
  const t = (id: number, status: string, owner = '', blockedBy: number[] = []) => ({ id, subject: `t${id}`, description: '', status, owner, blockedBy });
  assert.equal(tasksMarkdown([t(2, 'pending', '', [1]), t(1, 'in_progress', 'alice')] as never), '- ▶ **#1** t1 @alice\n- ☐ **#2** t2 (blocked by #1)');
  assert.equal(tasksMarkdown([]), 'The task board is empty.');
});

test('/spawn takes name, role, first instructions and an optional model', () => {
  assert.deepEqual(parseSpawn('alice backend engineer: write the parser --model openai:gpt-4.1'),
    { ok: true, input: { name: 'alice', role: 'backend engineer', prompt: 'write the parser', model: 'openai:gpt-4.1' } });
  assert.deepEqual(parseSpawn('bob tester: run: the tests'), { ok: true, input: { name: 'bob', role: 'tester', prompt: 'run: the tests' } });
  assert.equal(parseSpawn('alice: no role').ok, false);
  assert.equal(parseSpawn('alice dev').ok, false);
});

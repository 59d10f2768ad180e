// Every built-in tool carries its facts (src/shared/tool-facts.ts) and every entry of that
// table is a tool, so no side table can name a tool that is gone or miss a new one; the
// tables the roles, agent definitions and transcript rows derive from it say what they said
// when they were written by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOOL_FACTS, toolFacts } from '../../../src/shared/tool-facts';
import { toolHead } from '../../../src/shared/transcript-rows';
import { BUILTIN_TOOLS } from '../../../src/core/runtime/tools';
import { knownTeammateTools, TEAM_TOOLS, toolAllowed } from '../../../src/core/roles/roles';

test('each built-in tool has an entry in the tool facts, each entry is a built-in tool, and each definition carries its own', () => {
  const defined = new Set(BUILTIN_TOOLS.map((t) => t.name));
  assert.deepEqual([...defined].filter((n) => !Object.hasOwn(TOOL_FACTS, n)), [], 'tools without facts');
  assert.deepEqual(Object.keys(TOOL_FACTS).filter((n) => !defined.has(n)), [], 'facts of no tool');
  for (const t of BUILTIN_TOOLS) assert.equal(t.facts, TOOL_FACTS[t.name], t.name);
  assert.deepEqual(toolFacts('mcp__srv__tool'), {}, 'an MCP tool has none');
});

test('the derived tables: team-kept tools, the names a definition may use, transcript headings', () => {
  assert.deepEqual([...TEAM_TOOLS].sort(), ['claim_task', 'idle', 'plan_approval', 'read_inbox', 'send_message', 'shutdown_response', 'task_create', 'task_get', 'task_list', 'task_update']);
  assert.ok(toolAllowed('send_message', ['bash']), 'a team tool stays whatever the definition lists');
  assert.ok(!toolAllowed('write_file', ['read_file']));
  const known = knownTeammateTools([]);
  for (const w of ['bash', 'read_file', 'write_file', 'edit_file', 'list_dir', 'glob', 'grep', 'job_output', 'job_kill']) assert.ok(known.has(w), w);
  const call = (tool: string, input: unknown) => ({ kind: 'tool' as const, key: 'k', tool, id: 'i', input: JSON.stringify(input), running: false, isError: false });
  assert.equal(toolHead(call('bash', { command: 'npm test' }) as never), 'npm test');
  assert.equal(toolHead(call('task_update', { task_id: 3, status: 'completed' }) as never), '3');
});

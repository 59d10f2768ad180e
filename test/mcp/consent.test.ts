// What the user approves before an MCP server starts is the whole entry, and the API keys are
// never expanded into it (docs/mcp.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseServerEntry, startDetails } from '../../src/core/mcp/config';

const env = { ANTHROPIC_API_KEY: 'sk-ant-host', OPENAI_API_KEY: 'sk-oai-host', AGENT_TEAMS_TOKEN: 't', TOKEN: 'tok', HOME: '/home/u' };

test('the start details show command, cwd and env as written; any change to them changes the details', () => {
  const base = { command: 'node', args: ['-e', '0'], env: { NODE_OPTIONS: '--require ./evil.js', T: '${TOKEN}' } };
  const c = parseServerEntry('x', base, '/w', env);
  const d = startDetails(c);
  assert.equal(d, 'command: node -e 0\ncwd: /w\nenv:\n  NODE_OPTIONS="--require ./evil.js"\n  T="${TOKEN}"');
  assert.doesNotMatch(d, /tok\b/, 'values from the host environment are not shown');
  for (const changed of [
    { ...base, env: { ...base.env, NODE_OPTIONS: '--require ./other.js' } },
    { ...base, env: { ...base.env, EXTRA: '1' } },
    { ...base, args: ['-e', '1'] },
  ]) assert.notEqual(startDetails(parseServerEntry('x', changed, '/w', env)), d);
  assert.notEqual(startDetails(parseServerEntry('x', base, '/elsewhere', env)), d, 'cwd counts');
  const http = parseServerEntry('h', { type: 'http', url: 'https://mcp.example/x', headers: { Authorization: 'Bearer ${TOKEN}' } }, '/w', env);
  assert.equal(startDetails(http), 'url: https://mcp.example/x\nheaders:\n  Authorization="Bearer ${TOKEN}"');
  assert.equal(http.transport === 'http' && http.headers.Authorization, 'Bearer tok');
});

test('${ANTHROPIC_API_KEY}, ${OPENAI_API_KEY} and Agent Teams secrets are never expanded: left empty and named', () => {
  const c = parseServerEntry('x', {
    command: 'node', args: ['--key=${OPENAI_API_KEY}'],
    env: { A: '${ANTHROPIC_API_KEY}', B: '${AGENT_TEAMS_TOKEN:-fallback}', C: '${TOKEN}' },
  }, '/w', env);
  assert.equal(c.transport, 'stdio');
  if (c.transport !== 'stdio') return;
  assert.deepEqual(c.env, { A: '', B: '', C: 'tok' });
  assert.deepEqual(c.args, ['--key=']);
  assert.deepEqual(c.withheld?.sort(), ['AGENT_TEAMS_TOKEN', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY']);
  const h = parseServerEntry('h', { type: 'http', url: 'https://x.example/${ANTHROPIC_API_KEY}', headers: { K: '${ANTHROPIC_API_KEY}' } }, '/w', env);
  assert.ok(h.transport === 'http' && h.url === 'https://x.example/' && h.headers.K === '');
});

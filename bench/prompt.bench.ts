// prompt.first_request_chars (SPEC §18): the characters of each agent kind's first request
// as the fake Messages API receives it through the real SDK — system prompt, tool schemas
// (name, description, input schema as JSON) and total (system + tools + the first message).
// Targets (issue 27): lead ≤ 9,000, teammate ≤ 7,000. naive: every built-in tool offered to
// every agent (what an agent definition's `tools` list can opt back into), same run.
import { bench, note } from './lib/report';
import { reply, systemText, toolUse, type RecordedRequest } from '../test/fake-api';
import { allIdle, inProcessApi, noteMachine, startRuntime } from './fixtures/runtime-common';
import { BUILTIN_TOOLS } from '../src/core/runtime/tools';

function sizes(r: RecordedRequest): { system: number; tools: number; total: number } {
  const system = systemText(r.body).length;
  const tools = JSON.stringify(r.body.tools ?? []).length;
  return { system, tools, total: system + tools + JSON.stringify(r.body.messages).length };
}

async function main(): Promise<void> {
  noteMachine();
  const api = await inProcessApi();
  api.setDefault((r) => (r.agent === 'lead' ? 'Ok.' : reply(toolUse('idle', {}))));
  const ours = await startRuntime(api.url, {});
  await ours.rt.askLead('Fix the failing test in src/calc.js.');
  await ours.rt.spawnTeammate({ name: 'coder', role: 'developer', prompt: 'Fix the failing test in src/calc.js.' });
  await allIdle(ours.rt, ['coder']);
  for (const [agent, name] of [['lead', 'lead'], ['teammate', 'coder']] as const) {
    const s = sizes(api.requests(name)[0]!);
    note(`${agent}: system ${s.system}, tools ${s.tools} (${(api.requests(name)[0]!.body.tools ?? []).length} tools), total ${s.total} characters`);
    bench('prompt.first_request_chars', 'ours', { agent, ...s });
  }
  const all = JSON.stringify(BUILTIN_TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema() }))).length;
  bench('prompt.first_request_chars', 'naive', { agent: 'every-tool', system: 0, tools: all, total: all });
  await ours.close();
  await api.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

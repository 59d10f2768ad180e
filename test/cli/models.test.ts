// `agent-teams team` names each agent's provider and model, and says "usage unknown" for calls
// whose provider reported none (docs/models.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Team } from '../../src/core/team/team';
import { tempDir } from '../helpers/tmp';
import { runCli } from './cli-proc';
import { harness } from '../runtime/harness';

test('agent-teams team: provider and model per agent, usage unknown where none was reported', async (t) => {
  const root = await tempDir(t);
  const team = await new Team(root).init();
  t.after(() => team.dispose());
  await team.spawnMember('ana', 'dev', { model: 'openai:gpt-4.1', usage: { input: 0, output: 0, cache_read: 0, cache_write: 0, unreported: 2 } });
  await team.spawnMember('bo', 'dev', { model: 'vscode:copilot/gpt-4o', usage: { input: 100, output: 20, cache_read: 0, cache_write: 0, unreported: 1 } });
  await team.spawnMember('cy', 'dev', { usage: { input: 1000, output: 0, cache_read: 0, cache_write: 0 } });
  const text = (await runCli(['--root', root, 'team'])).stdout;
  assert.match(text, /ana\s+dev\s+working\s+-\s+usage unknown\s+gpt-4\.1 \(openai\)\s+price unknown/);
  assert.match(text, /bo\s+dev\s+working\s+-\s+120 tok \+ usage unknown\s+copilot\/gpt-4o \(vscode\)\s+price unknown/);
  assert.match(text, /cy\s+dev\s+working\s+-\s+1,000 tok\s+-\s+<\$0\.01/);
});

test('agent-teams team: the model the lead runs with, for the lead and teammates without their own', async (t) => {
  const h = await harness(t, { model: 'claude-haiku-4-5' });
  h.api.script('lead', 'Hello.');
  await h.rt.askLead('Hi.');
  await h.rt.spawnTeammate({ name: 'dee', role: 'dev', prompt: 'Wait.' });
  const text = (await runCli(['--root', h.root, 'team'])).stdout;
  assert.match(text, /^\s+lead\s+lead\s+.*haiku-4-5/m);
  assert.match(text, /^\s+dee\s+dev\s+.*haiku-4-5/m);
  const json = JSON.parse((await runCli(['--root', h.root, 'team', '--json'])).stdout) as { lead: { model: string } };
  assert.equal(json.lead.model, 'claude-haiku-4-5');
});

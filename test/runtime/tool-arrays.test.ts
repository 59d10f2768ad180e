// The tool arrays the model is sent, pinned: the JSON of the lead's and a teammate's
// `tools` exactly as they reach the fake API through the real SDK. A change to a tool's
// name, description, schema or order shows here as a diff against the fixture; refresh it
// with AGENT_TEAMS_WRITE_TOOL_FIXTURE=1 only when the change is meant.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';

const fixture = join(__dirname, '..', '..', '..', 'test', 'runtime', 'fixtures', 'tool-arrays.json');

test('the lead and teammate tool arrays sent to the model match the pinned fixture', async (t) => {
  const h = await harness(t);
  h.api.script('lead', 'Done.');
  h.api.script('pat', reply(toolUse('idle', {})));
  await h.rt.askLead('Hello.');
  await h.rt.spawnTeammate({ name: 'pat', role: 'dev', prompt: 'Nothing to do.' });
  await waitFor(() => h.api.requests('lead').length >= 1 && h.api.requests('pat').length >= 1, 10_000, 'both asked');
  const sent = { lead: h.api.requests('lead')[0]!.body.tools, teammate: h.api.requests('pat')[0]!.body.tools };
  const json = `${JSON.stringify(sent, null, 2)}\n`;
  if (process.env.AGENT_TEAMS_WRITE_TOOL_FIXTURE === '1') await writeFile(fixture, json);
  assert.equal(json, await readFile(fixture, 'utf8'));
});

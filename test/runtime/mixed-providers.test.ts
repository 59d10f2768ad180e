// One team, two vendors (docs/models.md): an `openai:` lead on the fake Chat Completions server
// and an Anthropic teammate on the fake Messages API, each through its real client.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fault, reply, toolUse } from '../fake-api';
import { startFakeOpenAI, type FakeOpenAI } from '../fake-openai/server';
import { waitFor } from '../helpers/tmp';
import { createModelFactory, resolveOpenAIConfig } from '../../src/core/model';
import { harness, mixedModels, type Harness, type RuntimeOptions } from './harness';
import { partsOf } from '../helpers/session-parts';

const KEY = 'sk-openai-test-0123456789';

async function mixed(t: Parameters<typeof harness>[0]): Promise<{ h: Harness; oai: FakeOpenAI }> {
  const oai = await startFakeOpenAI({ apiKey: KEY });
  const h = await harness(t, { model: 'openai:gpt-lead' });
  t.after(() => oai.close());
  await swap(h, mixedModels(h.api, oai.url, KEY));
  return { h, oai };
}

/** The same workspace, its agents now on `models`: the session before gives up the lead first. */
async function swap(h: Harness, models: RuntimeOptions['models']): Promise<void> {
  await h.rt.dispose();
  await h.restart({ models });
}

test('an openai: lead and an Anthropic teammate exchange messages and both run tools; usage recorded for both', async (t) => {
  const { h, oai } = await mixed(t);
  oai.script('lead',
    reply('Starting.', toolUse('bash', { command: 'echo from-lead > lead.txt' }),
      toolUse('spawn_teammate', { name: 'alice', role: 'writer', prompt: 'Write notes.md, then tell the lead.', model: 'anthropic:claude-sonnet-4-5' })),
    'alice is on it.',
  );
  h.api.script('alice',
    reply(toolUse('write_file', { path: 'notes.md', content: '# Notes\n' })),
    reply(toolUse('send_message', { to: 'lead', content: 'notes.md is written' })),
    reply(toolUse('idle', {})),
  );
  oai.script('lead', (r) => (JSON.stringify(r.body.messages).includes('notes.md is written')
    ? reply(toolUse('send_message', { to: 'alice', content: 'thanks alice' }))
    : 'no mail'), 'Done.');
  await h.rt.askLead('Write notes with a teammate.');
  await waitFor(() => h.api.requests('alice').some((r) => JSON.stringify(r.body.messages).includes('thanks alice')), 15_000, 'alice got the lead\'s message');
  assert.equal(await readFile(join(h.root, 'lead.txt'), 'utf8'), 'from-lead\n');
  assert.equal(await readFile(join(h.root, 'notes.md'), 'utf8'), '# Notes\n');
  // The lead's requests went to the OpenAI server, alice's to the Messages API, by model id.
  assert.ok(oai.requests('lead').length >= 3);
  assert.equal(h.api.requests('lead').length, 0);
  assert.equal(h.api.requests('alice')[0]!.body.model, 'claude-sonnet-4-5');
  // The lead heard alice as team mail over Chat Completions, after its tool results.
  const leadSaw = oai.requests('lead').map((r) => JSON.stringify(r.body.messages)).join('\n');
  assert.match(leadSaw, /team-mail from=\\"alice\\" type=\\"message\\">\\nnotes.md is written/);
  const config = await partsOf(h.rt).team.roster.read();
  assert.equal(config.members.find((m) => m.name === 'alice')?.model, 'anthropic:claude-sonnet-4-5');
  assert.ok((config.lead?.usage?.input ?? 0) > 0, 'lead usage from the OpenAI server');
  assert.ok((config.members[0]!.usage?.output ?? 0) > 0, 'alice usage from the Messages API');
});

test('stop aborts the openai: lead\'s request at once; the server sees the connection close', async (t) => {
  const { h, oai } = await mixed(t);
  oai.script('lead', fault.hang());
  void h.rt.askLead('Think hard.');
  const r = await oai.waitForRequest((x) => x.agent === 'lead' && x.outcome === 'hang', 5000);
  const t0 = Date.now();
  h.rt.cancelLeadTurn();
  await oai.waitForRequest((x) => x.seq === r.seq && x.disconnectedAt !== undefined, 3000);
  assert.ok(Date.now() - t0 < 1000, `stop took ${Date.now() - t0} ms`);
});

test('an openai: teammate whose key is rejected: a clear error in its transcript and a notice; the team goes on', async (t) => {
  const { h, oai } = await mixed(t);
  await swap(h, mixedModels(h.api, oai.url, 'sk-wrong-openai-key-000000'));
  h.api.script('bob', reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'bob', role: 'dev', prompt: 'Go.', model: 'claude-sonnet-4-5' });
  const err = await h.rt.spawnTeammate({ name: 'carl', role: 'dev', prompt: 'Go.', model: 'openai:gpt-dev' }).then(() => null, (e: Error) => e);
  // A key is present (only wrong): the spawn goes ahead and the first call says what is wrong.
  assert.equal(err, null);
  await waitFor(() => h.events.some((e) => e.type === 'notice' && e.level === 'error' && e.agent === 'carl'), 5000, 'error notice');
  const notice = h.events.find((e) => e.type === 'notice' && e.level === 'error' && e.agent === 'carl');
  assert.match(notice && 'message' in notice ? notice.message : '', /401.*OPENAI_API_KEY/);
  const file = join(h.root, '.team', 'transcripts', 'carl.jsonl');
  await waitFor(async () => /API key rejected \(401\)/.test(await readFile(file, 'utf8')), 3000, 'the error in carl\'s transcript');
  const transcript = await readFile(file, 'utf8');
  assert.doesNotMatch(transcript, /sk-wrong-openai-key/);
  // The Anthropic teammate is not held back by the other provider's rejected key: it still takes work.
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('bob'))?.status === 'idle', 5000, 'bob idle');
  const task = await partsOf(h.rt).team.tasks.create({ subject: 'for bob' });
  await waitFor(async () => (await partsOf(h.rt).team.tasks.get(task.id))?.owner === 'bob', 5000, 'bob claimed the new task');
});

test('spawning on a model that cannot serve is refused with the reason: unknown prefix, no OpenAI key', async (t) => {
  const { h } = await mixed(t);
  const unknown = await h.rt.spawnTeammate({ name: 'dan', role: 'dev', prompt: 'Go.', model: 'gemini:pro' }).then(() => null, (e: Error) => e);
  assert.match(String(unknown), /unknown model provider "gemini:"/);
  await swap(h, createModelFactory({
    anthropic: () => ({ apiKey: 'sk-test-secret', baseURL: h.api.url, keySource: 'env' }),
    openai: () => resolveOpenAIConfig({ envKey: '' }),
  }));
  const noKey = await h.rt.spawnTeammate({ name: 'eve', role: 'dev', prompt: 'Go.', model: 'openai:gpt-dev' }).then(() => null, (e: Error) => e);
  assert.match(String(noKey), /cannot spawn eve on openai:gpt-dev: No OpenAI API key.*OPENAI_API_KEY/);
  assert.equal(await partsOf(h.rt).team.roster.get('eve'), undefined, 'nothing written for a refused spawn');
});

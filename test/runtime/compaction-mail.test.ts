// Mail and compaction (docs: ARCHITECTURE.md, "Mailboxes"): mail delivered in the round that
// triggers a compaction reaches the agent as mail after the summary; a message too large
// for the context is cut with a note while the inbox keeps it whole; the summariser sees
// every earlier message even beside a huge one.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, text } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { summaryInput } from '../../src/core/runtime/compaction';
import { userSends } from '../helpers/session-parts';

const isSummary = (r: { body: { system?: unknown } }) => JSON.stringify(r.body.system ?? '').includes('summarising');

test('mail that arrives in the round that triggers compaction reaches the lead as mail after the summary', async (t) => {
  const h = await harness(t, { compactAtTokens: 20_000 });
  const huge = 'y'.repeat(500_000);
  h.api.script('lead', reply(text(`Here it is: ${huge}`)), 'Summary: the user asked about EARLY-MARKER; I answered at length.', reply(text('Got your mail.')));
  await h.rt.askLead('Tell me about EARLY-MARKER.');
  await userSends(h.rt, 'lead', 'MAIL-MARKER: please also check the README.');
  await waitFor(() => h.api.requests('lead').length >= 3, 10_000, 'a lead call after the summary');
  const reqs = h.api.requests('lead');
  assert.ok(isSummary(reqs[1]!), 'the second call is the summary');
  const summarised = JSON.stringify(reqs[1]!.body.messages);
  assert.match(summarised, /EARLY-MARKER/, 'the summariser saw the first question beside the 500 KB reply');
  assert.ok(summarised.length < 300_000, 'the summariser input is bounded');
  // The message goes to the lead itself, as mail, not only to the summariser.
  const after = JSON.stringify(reqs[2]!.body.messages);
  assert.match(after, /<team-mail from=\\"user\\"[^]*MAIL-MARKER/);
  assert.match(after, /Summary: the user asked about EARLY-MARKER/);
});

test('a message too large for the context is cut with a note; the inbox keeps the full text', async (t) => {
  const h = await harness(t, { compactAtTokens: 20_000 });
  h.api.script('lead', reply(text('Read it.')));
  const body = `START-MARKER ${'z'.repeat(400_000)} END-MARKER`;
  await userSends(h.rt, 'lead', body);
  await waitFor(() => h.api.requests('lead').length >= 1, 10_000, 'the lead is called');
  const sent = JSON.stringify(h.api.requests('lead')[0]!.body.messages);
  assert.ok(sent.length < 100_000, `the lead was sent ${sent.length} characters`);
  assert.match(sent, /START-MARKER/);
  assert.match(sent, /END-MARKER/);
  assert.match(sent, /characters cut to fit your context; the full message stays in .team\/inbox\/lead.jsonl/);
  const inbox = await readFile(join(h.root, '.team', 'inbox', 'lead.jsonl'), 'utf8');
  assert.ok(inbox.includes(body), 'the inbox holds the message whole');
});

test('the summariser input gives every message a share: a huge one never pushes out the others', () => {
  const messages = [
    { role: 'user' as const, content: 'FIRST task: build the parser.' },
    { role: 'assistant' as const, content: 'x'.repeat(1_000_000) },
    { role: 'user' as const, content: 'SECOND: and the tests.' },
  ];
  const input = summaryInput(messages, 50_000);
  assert.ok(input.length < 52_000);
  assert.match(input, /FIRST task/);
  assert.match(input, /SECOND: and the tests/);
  assert.match(input, /characters cut/);
});

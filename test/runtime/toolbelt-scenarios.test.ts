// Through the real SDK against the fake API: project instructions in the system prompt,
// the read-only search tools, background jobs and permission rules (docs/tools.md,
// docs/permissions.md).
import assert from 'node:assert/strict';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { harness, toolResults } from './harness';
import { killJobForUser } from '../../src/core/runtime/job-wakes';
import { waitFor } from '../helpers/tmp';
import type { FileChangeQuestion } from '../../src/core/runtime/types';
import { partsOf } from '../helpers/session-parts';

const systemOf = (r: { body: { system?: unknown } }) => JSON.stringify(r.body.system);

test('AGENTS.md reaches the lead under its heading; a change mid-phase waits for the next phase (cache-stable)', async (t) => {
  const h = await harness(t);
  await writeFile(join(h.root, 'AGENTS.md'), 'Always use pnpm, never npm.');
  h.api.script('lead',
    reply(toolUse('write_file', { path: 'AGENTS.md', content: 'Use yarn now.' })),
    'Done.',
    'Second phase.',
  );
  await h.rt.askLead('Go.');
  const first = h.api.requests('lead');
  assert.equal(first.length, 2);
  assert.match(systemOf(first[0]!), /## AGENTS.md\\n\\nAlways use pnpm, never npm\./);
  assert.equal(systemOf(first[1]!), systemOf(first[0]!), 'same system prompt within the phase');
  await h.rt.askLead('Again.');
  assert.match(systemOf(h.api.requests('lead')[2]!), /## AGENTS.md\\n\\nUse yarn now\./);
});

test('lead prompt: after spawning or messaging it ends its turn and waits for mail', async (t) => {
  const h = await harness(t);
  h.api.script('lead', 'ok');
  await h.rt.askLead('hi');
  assert.match(systemOf(h.api.requests('lead')[0]!), /To wait for teammates \(after spawning, messaging or asking them to shut down\), end your turn: what they send starts your next one\. Do not poll/);
});

test('list_dir, glob and grep run without asking even when bash asks, confined and .gitignore-aware', async (t) => {
  const h = await harness(t, { bashPolicy: 'ask' }, 'deny');
  await mkdir(join(h.root, 'src'));
  await writeFile(join(h.root, 'src', 'app.ts'), 'export function handler() {}\n');
  await writeFile(join(h.root, '.gitignore'), 'build/\n');
  await mkdir(join(h.root, 'build'));
  await writeFile(join(h.root, 'build', 'app.js'), 'function handler() {}\n');
  h.api.script('lead',
    reply(toolUse('list_dir', {}), toolUse('glob', { pattern: '**/*.ts' }), toolUse('grep', { pattern: 'function\\s+handler', glob: null, max_results: null }),
      toolUse('grep', { pattern: 'x', path: '../..' }), toolUse('glob', { pattern: '../**' })),
    'Found it.',
  );
  await h.rt.askLead('Where is the handler?');
  const r = toolResults(h, 'lead');
  assert.deepEqual(h.bashAsks, [], 'nothing asked');
  assert.match(r[0]!, /^\.\/\n( {2}\.tasks\/\n {2}\.team\/\n)? {2}src\/\n {2}\.gitignore$/m);
  assert.equal(r[1], 'src/app.ts');
  assert.match(r[2]!, /^src\/app.ts:1:export function handler\(\) \{\}$/m);
  assert.doesNotMatch(r[2]!, /build/);
  assert.match(r[3]!, /outside the workspace/);
  assert.match(r[4]!, /climbs out with "\.\."/);
});

test('permission rules: allowed commands run without asking; hostile compounds are asked with the reason; deny rules refuse', async (t) => {
  const h = await harness(t, { bashPolicy: 'ask', permissions: { allow: ['Bash(echo hello:*)'], ask: [], deny: ['Bash(rm:*)'] } }, 'deny');
  const hostile = [
    'echo hello; touch a', 'echo hello && touch b | cat', 'echo hello $(touch c)', 'echo hello `touch d`', 'echo hello > e',
  ];
  h.api.script('lead',
    reply(toolUse('bash', { command: 'echo hello world' }), ...hostile.map((c) => toolUse('bash', { command: c })),
      toolUse('bash', { command: 'echo hello; rm -rf f' })),
    'Done.',
  );
  await h.rt.askLead('Run them.');
  const r = toolResults(h, 'lead');
  assert.match(r[0]!, /^hello world/);
  assert.deepEqual(h.bashAsks, hostile, 'each hostile command was asked about, the allowed one not');
  const reasons = h.bashQuestions.map((q) => q?.reason ?? '');
  assert.match(reasons[0]!, /`touch a` is not allowed by any rule/);
  assert.match(reasons[2]!, /command substitution `\$\(touch c\)`/);
  assert.match(reasons[3]!, /command substitution ``touch d``/);
  assert.match(reasons[4]!, /redirection `> e`/);
  for (const res of r.slice(1, 6)) assert.match(res, /The user denied this command\./);
  assert.match(r[6]!, /Refused: `rm -rf f` matches the deny rule Bash\(rm:\*\)/);
  assert.deepEqual(h.bashQuestions[0]?.suggestions, ['Bash(echo hello; touch a)']);
  for (const f of ['a', 'b', 'c', 'd', 'e']) await assert.rejects(stat(join(h.root, f)), `${f} was not created`);
});

test('an ask rule on Write shows the change before writing; Read deny hides a file from read_file and grep', async (t) => {
  const changes: FileChangeQuestion[] = [];
  const h = await harness(t, { permissions: { allow: [], ask: ['Write(docs/**)'], deny: ['Read(.env)'] } }, 'allow', {
    fileChange: async (_agent, change) => (changes.push(change), change.after.includes('ok') ? 'allow' : 'deny'),
  });
  await writeFile(join(h.root, '.env'), 'TOKEN=needle');
  await writeFile(join(h.root, 'notes.txt'), 'needle');
  h.api.script('lead',
    reply(toolUse('write_file', { path: 'docs/a.md', content: 'rejected' }), toolUse('write_file', { path: 'docs/b.md', content: 'ok' }),
      toolUse('write_file', { path: 'c.md', content: 'free' }), toolUse('read_file', { path: '.env' }), toolUse('grep', { pattern: 'needle' })),
    'Done.',
  );
  await h.rt.askLead('Write.');
  const r = toolResults(h, 'lead');
  assert.deepEqual(changes.map((c) => [c.path, c.before, c.after, c.rule]), [['docs/a.md', null, 'rejected', 'Write(docs/**)'], ['docs/b.md', null, 'ok', 'Write(docs/**)']]);
  assert.match(r[0]!, /The user denied this change \(docs\/a.md matches the ask rule Write\(docs\/\*\*\)\)/);
  await assert.rejects(stat(join(h.root, 'docs', 'a.md')));
  assert.equal(await readFile(join(h.root, 'docs', 'b.md'), 'utf8'), 'ok');
  assert.equal(await readFile(join(h.root, 'c.md'), 'utf8'), 'free');
  assert.match(r[3]!, /Refused: .env matches the deny rule Read\(.env\)/);
  assert.match(r[4]!, /^notes.txt:1:needle/);
  assert.doesNotMatch(r[4]!, /TOKEN/);
});

test('a background job returns at once, and its end wakes its idle teammate once with the exit code', async (t) => {
  const h = await harness(t);
  h.api.script('bob',
    reply(toolUse('bash', { command: 'sleep 0.5; echo built; exit 4', run_in_background: true })),
    reply(toolUse('idle', {})),
    (req) => (JSON.stringify(req.body.messages).includes('ended with exit code 4') ? reply(toolUse('job_output', { job_id: 'job-1' })) : 'no wake'),
    reply(toolUse('idle', {})),
  );
  await h.rt.spawnTeammate({ name: 'bob', role: 'builder', prompt: 'Build in the background.' });
  await waitFor(() => h.api.requests('bob').length >= 4, 15_000, 'bob woken by the job and done');
  const r = toolResults(h, 'bob');
  assert.match(r[0]!, /^Started background job job-1\./);
  // The wake carried the output, so a job_output after it has nothing new.
  assert.match(JSON.stringify(h.api.requests('bob')[2]!.body.messages), /ended with exit code 4\. What it printed since it was last read:\\nbuilt/);
  assert.match(r.find((x) => x.includes('Job job-1'))!, /^\(no new output\)\n\nJob job-1 ended: exit code 4\./);
  await new Promise((res) => setTimeout(res, 500));
  assert.equal(h.api.requests('bob').length, 4, 'woken once, not again');
  const wakes = JSON.stringify(h.api.requests('bob')[3]!.body.messages).split('[background job] job-1').length - 1;
  assert.equal(wakes, 1);
});

test('a foreground command still running at the time limit goes on as a job; its end wakes the teammate with its last lines', async (t) => {
  const h = await harness(t, { bashTimeoutSeconds: 1 });
  h.api.script('bob',
    reply(toolUse('bash', { command: 'echo compiling; sleep 2.5; echo "FAIL adds: expected 3, got 4"; exit 1' })),
    reply(toolUse('idle', {})),
    (req) => (JSON.stringify(req.body.messages).includes('expected 3, got 4') ? reply(toolUse('idle', {})) : 'no wake'),
  );
  await h.rt.spawnTeammate({ name: 'bob', role: 'tester', prompt: 'Run the tests.' });
  await waitFor(() => h.api.requests('bob').length >= 3, 20_000, 'bob woken by the job');
  const [first] = toolResults(h, 'bob');
  assert.match(first!, /^compiling\n\nStill running after 1 s: not killed, it goes on as background job job-1\./);
  assert.match(JSON.stringify(h.api.requests('bob')[2]!.body.messages), /job-1 \(`echo compiling[^`]*`\) ended with exit code 1\. What it printed since it was last read:\\nFAIL adds: expected 3, got 4/);
  assert.equal(toolResults(h, 'bob').filter((x) => /Timed out/.test(x)).length, 0, 'nothing was killed');
});

test("the lead's foreground command handed over at the limit keeps the team from rest until it ends; its end wakes the lead", async (t) => {
  const h = await harness(t, { bashTimeoutSeconds: 1 });
  h.api.script('lead',
    reply(toolUse('bash', { command: 'sleep 2.5; echo "42 passed"' })),
    'The tests still run; I will report when they end.',
    (req) => (JSON.stringify(req.body.messages).includes('42 passed') ? 'All 42 tests pass.' : 'no wake'),
  );
  await h.rt.askLead('Run the tests.');
  // A headless run ends at rest: not while the lead waits for its own test run.
  const running = () => h.rt.jobs('lead').some((j) => j.state === 'running');
  assert.ok(running(), 'the command goes on as a job');
  let looks = 0;
  while (running()) {
    const rest = await h.rt.rest();
    if (running()) assert.equal(rest.atRest, false, 'not at rest while the handed-over command runs');
    looks++;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(looks >= 3, `looked ${looks} times while it ran`);
  await waitFor(() => h.api.requests('lead').length >= 3, 20_000, 'the lead woken by its job');
  await waitFor(async () => (await h.rt.rest()).atRest || undefined, 10_000, 'at rest once the lead has answered');
});

test('a job the user kills (Team tree Kill) tells its idle teammate so, once; no exit-code wake follows', async (t) => {
  const h = await harness(t);
  h.api.script('bob',
    reply(toolUse('bash', { command: 'sleep 60', run_in_background: true })),
    reply(toolUse('idle', {})),
    (req) => (JSON.stringify(req.body.messages).includes('was killed by the user') ? reply(toolUse('idle', {})) : 'no wake'),
  );
  await h.rt.spawnTeammate({ name: 'bob', role: 'builder', prompt: 'Serve in the background.' });
  await waitFor(() => h.rt.jobs('bob')[0]?.state === 'running' && h.api.requests('bob').length >= 2, 15_000, 'job running, bob idle');
  const info = await killJobForUser(partsOf(h.rt).runner!.jobs, partsOf(h.rt).team, 'bob', 'job-1');
  assert.equal(info.state, 'killed');
  await waitFor(() => h.api.requests('bob').length >= 3, 15_000, 'bob told');
  assert.match(JSON.stringify(h.api.requests('bob')[2]!.body.messages), /\[background job\] job-1 \(`sleep 60`\) was killed by the user\./);
  await killJobForUser(partsOf(h.rt).runner!.jobs, partsOf(h.rt).team, 'bob', 'job-1'); // already ended: nothing more is sent
  await new Promise((res) => setTimeout(res, 500));
  assert.equal(h.api.requests('bob').length, 3, 'told once, not woken again');
});

test('a Read ask rule: read_file asks first, and grep does not show those files\' lines without asking', async (t) => {
  const asked: string[] = [];
  const h = await harness(t, { permissions: { allow: [], ask: ['Read(secrets/**)'], deny: [] } }, 'allow', {
    tool: async (_agent, what) => (asked.push(what), 'deny'),
  });
  await mkdir(join(h.root, 'secrets'));
  await writeFile(join(h.root, 'secrets', 'key.txt'), 'TOKEN=needle');
  await writeFile(join(h.root, 'notes.txt'), 'needle');
  h.api.script('lead',
    reply(toolUse('grep', { pattern: 'needle' }), toolUse('read_file', { path: 'secrets/key.txt' }), toolUse('glob', { pattern: '**/*.txt' })),
    'Done.',
  );
  await h.rt.askLead('Look.');
  const r = toolResults(h, 'lead');
  assert.match(r[0]!, /^notes.txt:1:needle/);
  assert.doesNotMatch(r[0]!, /TOKEN/);
  assert.match(r[0]!, /1 match in files your Read rules ask about was left out \(secrets\/key.txt\); read_file asks the user for them\./);
  assert.deepEqual(asked, ['read secrets/key.txt']);
  assert.match(r[1]!, /The user denied this read/);
  assert.match(r[2]!, /secrets\/key.txt/, 'names are not contents: glob still lists the file');
});

// Ctrl-C and hosts: SIGINT cancels the lead's turn, not the session (twice at an idle
// prompt quits), and a teammate another host runs (its lease) is shown but never run here.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';

import { fault, reply, shaped, toolUse } from '../fake-api';
import { tempDir, waitFor } from '../helpers/tmp';
import { modelsFor, startSession, TEST_SETTINGS } from '../runtime/harness';
import { cleanEnv, fakeApi, runCli, session } from './cli-proc';
import { partsOf } from '../helpers/session-parts';

async function processesWith(marker: string): Promise<number> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((l) => l.includes(marker) && !l.includes('ps -eo')).length;
}

test('Ctrl-C cancels the lead turn, the session goes on; twice at an idle prompt quits', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead', fault.hang(), 'Back again.');
  const repl = await session(t, root, api);
  await repl.ready();
  repl.send('think forever');
  await api.waitForRequest((r) => r.agent === 'lead', 5000);
  repl.child.kill('SIGINT');
  await repl.expect(/\^C: cancelled the lead's turn\./);
  await repl.expect(/agent-teams >> /);
  repl.send('hello?');
  await repl.expect(/Back again\./);
  // The cancelled prompt is still part of the conversation the lead sees.
  assert.match(JSON.stringify(api.requests('lead').at(-1)!.body.messages), /think forever.*hello\?/);
  await repl.expect(/agent-teams >> /);
  repl.child.kill('SIGINT');
  await repl.expect(/press Ctrl-C again to quit/);
  assert.equal(repl.child.exitCode, null, 'one Ctrl-C at the prompt does not quit');
  repl.child.kill('SIGINT');
  await repl.expect(/Bye\./);
  assert.equal(await repl.exited, 0);
});

test("a teammate run by another host is shown as remote and never run by the session", async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  // The "VS Code window": a runtime in this process running tia.
  const other = await startSession({ root, settings: TEST_SETTINGS, models: modelsFor(api), approver: { bash: async () => 'deny' }, hostId: 'vscode-window-1' });
  t.after(() => other.dispose());
  api.script('tia', reply(toolUse('idle', {})));
  await other.spawnTeammate({ name: 'tia', role: 'dev', prompt: 'Wait.' });
  await waitFor(async () => (await partsOf(other).team.roster.get('tia'))?.status === 'idle', 5000, 'tia idle');

  api.script('lead', reply(toolUse('spawn_teammate', { name: 'tia', role: 'dev', prompt: 'again' })), 'Could not.');
  const repl = await session(t, root, api);
  await repl.expect(/tia is run by another host: host vscode-window-1 \(pid \d+/, 30_000);
  await repl.expect(/The lead is run by another host \(vscode-window-1\)/);
  await repl.expect(/agent-teams >> /);
  repl.send('/team');
  await repl.expect(/tia\s+dev\s+remote: host vscode-window-1/);
  assert.ok(repl.saw(/lead\s.*remote: host vscode-window-1/), 'the lead row says where it runs');
  // The window runs the lead too: typed words go to its inbox, nothing is lost or run twice.
  repl.send('spawn tia');
  await repl.expect(/The lead runs in another window \(host vscode-window-1\): your words went to its inbox, and it answers there\./);
  await waitFor(() => api.requests('lead').some((r) => JSON.stringify(r.body.messages).includes('spawn tia')), 10_000, 'the window\'s lead got it');
  await waitFor(() => api.requests('lead').length >= 2, 10_000, 'the window\'s lead finished its turn');
  assert.ok(!repl.saw(/\[lead\] spawn_teammate/), 'the session ran no lead of its own');
  repl.send('/stop tia');
  await repl.expect(/error: tia is run by another window \(host vscode-window-1\)/);
  const tiaCalls = api.requests('tia').length;
  repl.send('/quit');
  await repl.expect(/Bye\./);
  assert.equal(await repl.exited, 0);
  assert.ok(!repl.saw(/Asking tia/), '/quit leaves teammates of other hosts alone');
  const tia = await partsOf(other).team.roster.get('tia');
  assert.equal(tia?.status, 'idle');
  assert.equal(tia?.host?.id, 'vscode-window-1');
  assert.equal(api.requests('tia').length, tiaCalls, 'the session made no model call for tia');
  await other.dispose(); // before the folder is removed
});

test('prompts piped in: the exit code says whether the agents hit an error', async (t) => {
  const api = await fakeApi(t);
  const env = (root: string) => cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url });
  const okRoot = await tempDir(t);
  api.script('lead', 'All good.');
  const ok = await runCli(['--root', okRoot, '--idle-timeout', '0'], { env: env(okRoot), input: 'say hello\n' });
  assert.match(ok.stdout, /All good\./);
  assert.equal(ok.code, 0, ok.stderr);

  const badRoot = await tempDir(t);
  api.script('lead', fault.auth());
  const bad = await runCli(['--root', badRoot, '--idle-timeout', '0'], { env: env(badRoot), input: 'say hello\n' });
  assert.match(bad.stdout, /API key rejected \(401\)/);
  assert.match(bad.stdout, /1 error in this session/);
  assert.equal(bad.code, 1);
});

test('SIGTERM (or the terminal closing) stops the agents and their commands, and keeps the team for the next session', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  const marker = `agent-teams-term-${process.pid}-${Date.now()}`;
  api.script('lead', reply(toolUse('bash', { command: `sleep 45; echo ${marker}` })));
  const repl = await session(t, root, api, ['--bash', 'allow']);
  await repl.ready();
  repl.send('run the long job');
  await waitFor(async () => (await processesWith(marker)) > 0, 10_000, 'the command runs');
  repl.child.kill('SIGTERM');
  assert.equal(await repl.exited, 143);
  await waitFor(async () => (await processesWith(marker)) === 0, 3000, 'its process group is gone');
  // The lead's lease is given up: the next session need not wait for it to go stale.
  const config = JSON.parse(await readFile(join(root, '.team', 'config.json'), 'utf8'));
  assert.equal(config.lead?.host ?? null, null);
});

test('a piped session whose budget runs out ends cleanly after its input, with the way to continue', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead', reply(toolUse('task_list', {})), 'never asked');
  const r = await runCli(['--root', root, '--idle-timeout', '0', '--token-budget', '10'], {
    env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url }), input: 'one\ntwo\n/tasks\n',
  });
  assert.match(r.stdout, /The lead's turn ended: the token budget is spent\./);
  // The lines after it still ran: the second prompt (paused at once) and the slash command.
  assert.match(r.stdout, /No tasks/);
  assert.match(r.stdout, /Token budget of 10 spent: the team is paused\. To continue, \/quit and start the session again with a higher --token-budget\./);
  assert.match(r.stdout, /Bye\./);
  assert.equal(r.code, 0);
  assert.equal(api.requests('lead').length, 1);
});

test("the lead's words appear as the model streams them, once", async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  const words = 'The release plan: first we freeze the branch, then we test it, then we ship on Friday.';
  api.script('lead', shaped(words, { delayMs: 120 }));
  const repl = await session(t, root, api);
  await repl.ready();
  repl.send('plan the release');
  await repl.expect(/The release plan/, 10_000);
  const call = api.requests('lead')[0]!;
  assert.equal(call.finishedAt, undefined, 'shown while the reply was still streaming');
  await repl.expect(/ship on Friday\./, 10_000);
  await repl.expect(/agent-teams >> /);
  assert.equal(repl.out.split('The release plan').length - 1, 1, 'printed once, not again when complete');
});

test('an open approval question takes only answers: a command typed meanwhile runs, a prompt waits its turn', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.setDefault((r) => {
    const last = JSON.stringify(r.body.messages.at(-1));
    if (/run it/.test(last)) return reply(toolUse('bash', { command: 'echo from-bash' }));
    if (/tell me a joke/.test(last)) return 'A joke.';
    return 'Ran it.';
  });
  const repl = await session(t, root, api, ['--bash', 'ask', '--sandbox', 'off']);
  await repl.ready();
  repl.send('run it');
  await repl.expect(/Allow\? \[y\]es/);
  repl.send('/tasks');
  await repl.expect(/No tasks\./);
  await repl.expect(/Allow\? \[y\]es/);
  repl.send('tell me a joke');
  await repl.expect(/\(not an answer, so it goes on as your next input: tell me a joke\)/);
  repl.send('y');
  await repl.expect(/from-bash/);
  await repl.expect(/A joke\./, 10_000);
  assert.ok(api.requests('lead').some((r) => JSON.stringify(r.body.messages).includes('tell me a joke')), 'the prompt reached the lead');
});

test('a turn carried on from an earlier session that pauses on the budget at once does not hang a piped session', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  // Session 1 is ended (SIGTERM) in the middle of a lead turn.
  api.script('lead', 'First answer.', shaped('never finishes', { stallAfter: 1 }));
  const first = await session(t, root, api);
  await first.ready();
  first.send('hello');
  await first.expect(/First answer\./);
  first.send('plan the release');
  await api.waitForRequest((r) => r.agent === 'lead' && r.seq > 1, 5000);
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 143);
  // Session 2 carries that turn on, but its budget is already spent.
  const r = await runCli(['--root', root, '--idle-timeout', '0', '--token-budget', '10'], {
    env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url }), input: 'one\n/tasks\n',
  });
  assert.match(r.stdout, /The lead's turn ended: the token budget is spent\./);
  assert.match(r.stdout, /No tasks\./);
  assert.match(r.stdout, /Bye\./);
  assert.equal(r.code, 0);
});

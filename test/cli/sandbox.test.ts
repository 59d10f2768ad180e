// The API key out of reach of every command (docs/security.md): a CLI session started with
// ANTHROPIC_API_KEY in its environment, and a scripted model that reads its parent's
// environment block, every process's through `ps`, and does so again from a background job,
// encoded so masking cannot catch it. Sandboxed or not, the key never reaches the model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { detectEngine } from '../../src/core/sandbox/engine';
import { fakeApi, runCli, session } from './cli-proc';

const KEY = 'sk-test-cli';
// `umount -l /proc` first: run as root, a command that kept CAP_SYS_ADMIN would see the host's /proc again.
const STEAL = "umount -l /proc 2>/dev/null; for p in /proc/[0-9]*; do tr '\\0' '\\n' <$p/environ | grep -e ^ANTHROPIC_ -e ^PATH=; done 2>/dev/null | base64 -w0; echo; tr '\\0' '\\n' </proc/$PPID/environ | base64 -w0; echo; ps -eww e | base64 -w0; echo; for p in /proc/[0-9]*; do cat $p/environ $p/cmdline 2>/dev/null; done | rev | base64 -w0";

/** Whether any tool result, or any base64 run in it decoded (also reversed), holds the key. */
function leaks(text: string): boolean {
  if (text.includes(KEY)) return true;
  for (const run of text.match(/[A-Za-z0-9+/=]{16,}/g) ?? []) {
    const plain = Buffer.from(run, 'base64').toString('latin1');
    if (plain.includes(KEY) || plain.includes([...KEY].reverse().join(''))) return true;
  }
  return false;
}

for (const mode of ['auto', 'off'] as const) {
  test(`the key: /proc/$PPID/environ, ps and a background job show no key (--sandbox ${mode})`, async (t) => {
    const engine = await detectEngine();
    if (!engine.pidNamespace) return t.skip(`bubblewrap does not work here: ${engine.reason}`);
    const api = await fakeApi(t);
    const root = await tempDir(t);
    api.script('lead',
      reply(toolUse('bash', { command: STEAL })),
      reply(toolUse('bash', { command: STEAL, run_in_background: true })),
      reply(toolUse('bash', { command: 'sleep 1' })),
      reply(toolUse('job_output', { job_id: 'job-1' })),
      'Nothing found.',
    );
    const repl = await session(t, root, api, ['--bash', 'allow', '--sandbox', mode]);
    await repl.ready();
    repl.send('Look around.');
    await repl.expect(/Nothing found\./, 30_000);
    const sent = JSON.stringify(api.requests('lead').at(-1)?.body.messages);
    assert.match(sent, /PATH=|UEFUSD/, 'the environment blocks were read (the attack ran)');
    assert.equal(leaks(sent), false, 'the key reached the model');
    repl.send('/quit');
    await repl.exited;
  });
}

test('agent-teams sandbox: mode, engine, what is missing and the policy for the folder', async (t) => {
  const root = await tempDir(t);
  const r = await runCli(['sandbox', '--root', root]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^mode: auto/m);
  const e = await detectEngine();
  if (e.engine) assert.match(r.stdout, /^engine: bubblewrap/m);
  assert.match(r.stdout, /writable: .*agent-teams/m);
  assert.match(r.stdout, /read-only: .*\.team/m);
  assert.match(r.stdout, /network: only allowed hosts/m);
  if (e.engine) assert.match(r.stdout, e.nsenter ? /an agent's commands share one network namespace/ : /each command starts its own network bridge/);
  const none = await runCli(['sandbox', '--root', root, '--json'], { env: { ...process.env, PATH: '/nonexistent' } });
  const j = JSON.parse(none.stdout) as { active: boolean; missing: string[] };
  assert.equal(j.active, false);
  assert.deepEqual(j.missing, ['bubblewrap', 'socat']);
});

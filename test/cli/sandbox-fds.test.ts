// Only standard input, output and error reach a sandboxed command (docs/security.md): a
// descriptor the CLI inherited (a parent that leaked a pipe or socket to it: a CI runner, an
// editor's terminal) is passed on by every process that does not close it — bwrap does not. The
// CLI is started with an extra socket at fd 20 (past the fds Node marks close-on-exec at start),
// and a scripted model lists its command's open descriptors, in the foreground and in a job.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { detectEngine } from '../../src/core/sandbox/engine';
import { toolResults } from '../runtime/harness';
import { cleanEnv, cliPath, fakeApi } from './cli-proc';

const EXTRA_FD = 20;
const LIST = 'ls -l /proc/self/fd | sed -n "s/.* \\([0-9]*\\) -> \\(.*\\)/fd \\1 \\2/p"';

/** The fds a listing shows open, but the directory `ls` itself was reading. */
function openFds(listing: string): number[] {
  return [...listing.matchAll(/^fd (\d+) (.*)$/gm)].filter((m) => !/^\/proc\/\d+\/fd$/.test(m[2]!)).map((m) => Number(m[1]));
}

test('a sandboxed command and a sandboxed job see only fds 0, 1 and 2, though the CLI inherited another', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const api = await fakeApi(t);
  const root = await tempDir(t);
  api.script('lead',
    reply(toolUse('bash', { command: LIST })),
    reply(toolUse('bash', { command: `${LIST}; sleep 0.2`, run_in_background: true })),
    reply(toolUse('bash', { command: 'sleep 1' })),
    reply(toolUse('job_output', { job_id: 'job-1' })),
    'Listed.');
  const stdio: Array<'pipe' | 'ignore'> = ['pipe', 'pipe', 'pipe', ...Array<'ignore'>(EXTRA_FD - 3).fill('ignore'), 'pipe'];
  const child = spawn(process.execPath, [await cliPath(), 'run', '--root', root, '--idle-timeout', '0', '--trust', '--bash', 'allow', '--sandbox', 'required', 'List.'], {
    env: cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: api.url }), stdio,
  });
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let err = '';
  child.stderr!.on('data', (b) => { err += b; });
  child.stdout!.resume();
  (child.stdio as unknown as Socket[])[EXTRA_FD]!.resume();
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0, err);
  // The foreground listing is a tool result; the job's comes with its end message.
  const lastMessages = JSON.parse(JSON.stringify(api.requests('lead').at(-1)!.body.messages)) as Array<{ content: unknown }>;
  const said = lastMessages.flatMap((m) => (typeof m.content === 'string' ? [m.content] : (m.content as Array<{ text?: string }>).flatMap((b) => (b.text ? [b.text] : []))));
  const listings = [...toolResults({ api }), ...said].filter((r) => r.includes('fd 0 '));
  assert.equal(listings.length, 2, `both listings reached the model: ${[...toolResults({ api }), ...said].join('\n---\n')}`);
  for (const l of listings) assert.deepEqual(openFds(l), [0, 1, 2], l);
});

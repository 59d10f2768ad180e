// `agent-teams log`, `export` and `changes` as a user reads them: the same transcript in
// three modes, hostile content made harmless, huge files read from the end, changes with diffs.
import assert from 'node:assert/strict';
import { appendFile, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { run } from '../../src/cli/main';
import type { CliIo } from '../../src/cli/io';
import { ChangeLog } from '../../src/core/watch/change-log';
import { tempDir, waitFor } from '../helpers/tmp';
import { runCli } from './cli-proc';

const BIG = 'x'.repeat(10 * 1024 * 1024);
let n = 0;
const line = (kind: string, body: Record<string, unknown>): string => JSON.stringify({ id: `e${++n}`, kind, ts: 1767000000 + n, ...body }) + '\n';
const msg = (role: string, content: unknown): string => line('msg', { message: { role, content } });

async function transcript(root: string, name: string, text: string): Promise<string> {
  const dir = join(root, '.team', 'transcripts');
  await mkdir(dir, { recursive: true });
  const p = join(dir, `${name}.jsonl`);
  await writeFile(p, text);
  return p;
}

const SAMPLE = (): string => [
  msg('user', 'Write the notes.'),
  msg('assistant', [{ type: 'text', text: 'On it. <img src=x onerror=alert(1)>' }, { type: 'tool_use', id: 'tu1', name: 'bash', input: { command: 'ls --color' } }]),
  line('event', { event: { type: 'usage', input: 1200, output: 80, cache_read: 9000, cache_write: 0 } }),
  msg('user', [{ type: 'tool_result', tool_use_id: 'tu1', content: '\u001b[31mred.txt\u001b[0m\n\u001b]0;pwned\u0007' }]),
  'this line is not JSON\n',
  msg('assistant', [{ type: 'tool_use', id: 'tu2', name: 'read_file', input: { path: 'big.log' } }, { type: 'tool_use', id: 'tu3', name: 'send_message', input: { to: 'lead', content: 'done' } }]),
  msg('user', [{ type: 'tool_result', tool_use_id: 'tu2', content: BIG }, { type: 'tool_result', tool_use_id: 'tu3', content: 'sent' },
    { type: 'text', text: '<team-mail from="bob" type="message">\nlooks good\n</team-mail>' }]),
  line('event', { event: { type: 'notice', what: 'retry', level: 'warning', text: 'Retrying in 2 s (attempt 1): overloaded' } }),
].join('');

test('log shows one transcript in summary, normal and verbose; hostile output stays text; a 10 MB result is cut with a note', async (t) => {
  const root = await tempDir(t);
  await transcript(root, 'alice', SAMPLE());
  const normal = await runCli(['--root', root, 'log', 'alice']);
  assert.equal(normal.code, 0, normal.stderr);
  const out = normal.stdout;
  assert.match(out, /to alice\n {4}Write the notes\./);
  assert.match(out, /alice\n {4}On it\. <img src=x onerror=alert\(1\)>/);
  assert.match(out, /bash {2}ls --color\n {4}\^\[\[31mred\.txt\^\[\[0m/, 'ANSI escapes made visible, not sent to the terminal');
  assert.doesNotMatch(out, /\u001b/);
  assert.doesNotMatch(out, /tokens {2}/, 'tokens per round only in the verbose view');
  assert.match(out, /skipped {2}A damaged line at byte \d+ of the transcript was skipped\./);
  assert.match(out, /read_file {2}big\.log\n {4}\(2 lines folded; --view verbose shows them\)/);
  assert.match(out, /mail to lead\n {4}done/);
  assert.match(out, /mail from bob\n {4}looks good/);
  assert.match(out, /retry {2}Retrying in 2 s/);
  assert.ok(out.length < 20_000, `normal output stays short (${out.length})`);

  const summary = (await runCli(['--root', root, 'log', 'alice', '--view', 'summary'])).stdout;
  assert.match(summary, /1 tool call {2}bash/);
  assert.match(summary, /1 tool call {2}read_file/);
  assert.doesNotMatch(summary, /red\.txt|tokens|retry/, 'tool output, usage and retries are folded away in summary');
  assert.match(summary, /mail to lead/);

  const verbose = (await runCli(['--root', root, 'log', 'alice', '--view', 'verbose'])).stdout;
  assert.match(verbose, /│ {3}"command": "ls --color"/);
  assert.match(verbose, /tokens {2}1,200 in · 80 out · 9,000 cache read · 0 cache write/);
  assert.match(verbose, /\(\d+ more characters not shown\)/);
  assert.ok(verbose.length < 200_000, `a 10 MB result is cut (${verbose.length})`);

  const json = (await runCli(['--root', root, 'log', 'alice', '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
  assert.deepEqual([...new Set(json.map((i) => i.kind))].sort(), ['mail_in', 'notice', 'prompt', 'text', 'tool', 'usage']);

  assert.equal((await runCli(['--root', root, 'log', 'nobody'])).code, 1);
  assert.equal((await runCli(['--root', root, 'log', '../etc'])).code, 2);
  assert.equal((await runCli(['--root', root, 'log', 'alice', '--view', 'loud'])).code, 2);
});

test('export writes the whole transcript as Markdown with HTML made inert', async (t) => {
  const root = await tempDir(t);
  await transcript(root, 'alice', SAMPLE());
  const r = await runCli(['--root', root, 'export', 'alice', '--out', join(root, 'alice.md')]);
  assert.equal(r.code, 0, r.stderr);
  const md = await readFile(join(root, 'alice.md'), 'utf8');
  assert.match(md, /^# Transcript of alice/);
  assert.match(md, /On it\. &lt;img src=x onerror=alert\(1\)>/);
  assert.match(md, /```json\n\{\n {2}"command": "ls --color"\n\}\n```/);
  assert.match(md, /> looks good/);
});

test('log of a 100 MB transcript reads only its end, quickly, and says so', async (t) => {
  const root = await tempDir(t);
  const p = await transcript(root, 'big', '');
  const chunk = Buffer.from(msg('assistant', [{ type: 'text', text: 'y'.repeat(1000) }]).repeat(1000));
  const fh = await open(p, 'a');
  for (let i = 0; i < Math.ceil((100 * 1024 * 1024) / chunk.length); i++) await fh.write(chunk);
  await fh.close();
  await appendFile(p, msg('assistant', [{ type: 'text', text: 'the very last words' }]));
  const r = await runCli(['--root', root, 'log', 'big', '--view', 'summary']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /the first 8\d\.\d MB of big's transcript are not shown/);
  assert.match(r.stdout, /the very last words\n$/);
  assert.ok(r.ms < 60_000, `took ${r.ms} ms`);
});

test('log --follow prints tool calls and their results as they are appended, until Ctrl-C', async (t) => {
  const root = await tempDir(t);
  const p = await transcript(root, 'carl', msg('user', 'Go.'));
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d) => (out += d));
  let sigint = (): void => undefined;
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {}, cwd: root, isTTY: false, onSigint: (h) => ((sigint = h), () => undefined) };
  const done = run(['--root', root, 'log', 'carl', '--follow'], io);
  await waitFor(() => out.includes('Go.'), 15_000, 'initial transcript');
  await appendFile(p, msg('assistant', [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'npm test' } }]));
  await waitFor(() => /bash {2}npm test · running…/.test(out), 15_000, 'tool call shown live');
  await appendFile(p, msg('user', [{ type: 'tool_result', tool_use_id: 't1', content: '12 passing' }]));
  await waitFor(() => out.includes('↳ 12 passing'), 15_000, 'result shown live');
  sigint();
  assert.equal(await done, 0);
});

test('changes lists who changed what for which task, with diffs; records without content say so', async (t) => {
  const root = await tempDir(t);
  const log = new ChangeLog(root);
  const abs = join(root, 'a.txt');
  const opts = { task: 4, realTeamRoot: root };
  await log.record('alice', root, { abs, tool: 'write_file', before: null, after: Buffer.from('one\ntwo\nthree\n') }, opts);
  await log.record('alice', root, { abs, tool: 'edit_file', before: Buffer.from('one\ntwo\nthree\n'), after: Buffer.from('one\n2\nthree\n') }, opts);
  await log.record('bob', root, { abs: join(root, 'b.bin'), tool: 'write_file', before: null, after: Buffer.from([0, 1, 2]) }, { task: null, realTeamRoot: root });
  await appendFile(log.file('bob'), 'garbage\n');
  const r = await runCli(['--root', root, 'changes', '--diff']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /alice {6}created {6}a\.txt task #4/);
  assert.match(r.stdout, /--- \/dev\/null\n\+\+\+ b\/a\.txt\n@@ -0,0 \+1,3 @@\n\+one\n\+two\n\+three/);
  assert.match(r.stdout, /alice {6}edited {7}a\.txt task #4/);
  assert.match(r.stdout, /@@ -1,3 \+1,3 @@\n one\n-two\n\+2\n three/);
  assert.match(r.stdout, /bob {8}created {6}b\.bin {2}\[none → 3 B \(binary, no content\)\]/);
  assert.match(r.stdout, /\(no diff: content after was not recorded\)/);
  assert.match(r.stderr, /1 damaged change record skipped/);
  const only = await runCli(['--root', root, 'changes', 'bob', '--json']);
  assert.deepEqual((JSON.parse(only.stdout) as { agent: string }[]).map((c) => c.agent), ['bob']);
  assert.match((await runCli(['--root', root, 'changes', 'carol'])).stdout, /No changes by carol\./);
});

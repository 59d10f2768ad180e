// The CLI session's permission rules (docs/permissions.md): --allow/--deny flags and
// .team/settings.json, questions that say why, "prefix" answers that add a session rule,
// background jobs listed by /jobs.
import assert from 'node:assert/strict';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { tempDir } from '../helpers/tmp';
import { fakeApi, session } from './cli-proc';

test('CLI: rules from flags and .team/settings.json; a compound command asks with the reason; p adds a prefix rule; /jobs', async (t) => {
  const api = await fakeApi(t);
  const root = await tempDir(t);
  await mkdir(join(root, '.team'));
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)', 'Frob(x)'] } }));
  api.script('lead',
    reply(toolUse('bash', { command: 'echo hi there' })),
    reply(toolUse('bash', { command: 'echo hi; touch x' })),
    reply(toolUse('bash', { command: 'rm -rf y' })),
    reply(toolUse('bash', { command: 'ls -a' })),
    reply(toolUse('bash', { command: 'ls -la' })),
    reply(toolUse('bash', { command: 'sleep 30', run_in_background: true })),
    'All done.',
  );
  const repl = await session(t, root, api, ['--bash', 'ask', '--sandbox', 'off', '--trust', '--allow', 'Bash(echo hi:*)']);
  await repl.ready();
  assert.match(repl.err, /\.team\/settings\.json|permissions\.deny/); // the malformed rule is reported
  repl.send('Run things.');
  await repl.expect(/> hi there/);
  await repl.expect(/lead wants to run a shell command:\n {4}echo hi; touch x\n {2}\(`touch x` is not allowed by any rule \(every part of a compound command must be allowed\)\)/);
  await repl.expect(/\[a\]lways this command \/ \[N\]o:/);
  repl.send('n');
  await repl.expect(/x The user denied this command\./);
  await repl.expect(/x Refused: `rm -rf y` matches the deny rule Bash\(rm:\*\)/);
  await repl.expect(/\[p\]refix: always Bash\(ls:\*\)/);
  repl.send('p');
  await repl.expect(/Added allow rule Bash\(ls:\*\) for this session\./);
  await repl.expect(/\[lead\] bash\(command="ls -la"\)/);
  await repl.expect(/\[p\]refix: always Bash\(sleep:\*\)/);
  repl.send('y');
  await repl.expect(/Started background job job-1/);
  await repl.expect(/All done\./);
  assert.equal((repl.out.match(/wants to run a shell command/g) ?? []).length, 3, 'ls -la ran on the new prefix rule');
  repl.send('/jobs');
  await repl.expect(/lead {2}job-1 {2}running \d+ s {2}sleep 30/);
  await assert.rejects(stat(join(root, 'x')));
  repl.send('/quit');
  await repl.exited;
});

// `agent-teams hooks` (docs/hooks.md): every hook of the three settings files with its event,
// matcher, command, timeout and file; malformed entries on stderr with file and position.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/tmp';
import { runCli } from './cli-proc';

test('agent-teams hooks lists hooks per event with their source file; problems go to stderr with file:line:column', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, '.claude'));
  await mkdir(join(root, '.team'));
  await writeFile(join(root, '.claude', 'settings.json'), JSON.stringify({
    hooks: { Stop: [{ hooks: [{ type: 'command', command: 'npm test' }] }], PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --check', timeout: 5 }] }] },
  }, null, 2));
  await writeFile(join(root, '.claude', 'settings.local.json'), '{ "hooks": { "Stop": [ { "hooks": [ { "type": "command" } ] } ] } }');
  await writeFile(join(root, '.team', 'settings.json'), JSON.stringify({ permissions: { allow: [] }, hooks: { TaskCompleted: [{ hooks: [{ type: 'command', command: './gate.sh' }] }] } }));
  const text = await runCli(['hooks', '--root', root]);
  assert.equal(text.code, 0, text.stderr);
  const rows = text.stdout.trim().split('\n');
  assert.match(rows[0]!, /^event\s+matcher\s+command\s+timeout\s+file$/);
  assert.match(rows[1]!, /^PreToolUse\s+Edit\|Write\s+prettier --check\s+5 s\s+\.claude\/settings\.json$/);
  assert.match(rows[2]!, /^Stop\s+\*\s+npm test\s+60 s\s+\.claude\/settings\.json$/);
  assert.match(rows[3]!, /^TaskCompleted\s+\*\s+\.\/gate\.sh\s+60 s\s+\.team\/settings\.json$/);
  assert.match(text.stderr, /\.claude\/settings\.local\.json:1:\d+: hooks\.Stop\[0\]\.hooks\[0\]: command: .*; ignored/);
  const json = await runCli(['hooks', '--root', root, '--json']);
  const o = JSON.parse(json.stdout);
  assert.deepEqual(o.hooks.map((h: { event: string }) => h.event), ['PreToolUse', 'Stop', 'TaskCompleted']);
  assert.equal(o.hooks[2].source, '.team/settings.json');
  assert.equal(o.problems.length, 1);
});

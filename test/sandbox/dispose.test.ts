// A command launched while the host shuts down (a teammate's last hook, a job racing the
// stop) must not make a new box: its network proxy would listen on a socket nobody closes,
// and the host's process would never exit (docs/security.md, "What the sandbox does").
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CommandSandbox } from '../../src/core/sandbox/sandbox';
import { detectEngine } from '../../src/core/sandbox/engine';
import { DEFAULT_SANDBOX } from '../../src/shared/sandbox-schemas';

const SOCKETS = `/tmp/agent-teams-${process.getuid?.() ?? 'u'}`;

/** The socket folders of the boxes made for `root`'s sandbox (sandbox.ts, one per box). */
async function boxSockets(base: string): Promise<string[]> {
  return (await readdir(SOCKETS).catch(() => [] as string[])).filter((n) => n.startsWith(base));
}

test('a launch racing dispose() is refused and leaves no proxy listening; one before it is closed by it', async (t) => {
  const e = await detectEngine();
  if (!e.engine) return t.skip(`no sandbox on this machine: ${e.reason}`);
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-dispose-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const sandbox = new CommandSandbox({ root, settings: () => DEFAULT_SANDBOX, rules: () => undefined, notice: () => undefined });
  const before = await sandbox.launch('alice', root, 'true');
  assert.ok(!('refused' in before), 'a command before the stop is launched');
  await before.release();
  const base = createHash('sha256').update(root).digest('hex').slice(0, 12);
  assert.equal((await boxSockets(base)).length, 1, 'alice has a box');
  // bob's launch starts first, the stop lands while it looks at the engine.
  const racing = sandbox.launch('bob', root, 'true');
  await sandbox.dispose();
  const late = await racing;
  assert.deepEqual(late, { refused: 'the session has ended' });
  assert.deepEqual(await sandbox.launch('carol', root, 'true'), { refused: 'the session has ended' });
  assert.deepEqual(await boxSockets(base), [], 'no box outlives dispose()');
});

// Append handles of JSON-lines files (src/core/team/jsonl.ts) are closed when a write fails,
// not left to the garbage collector: a host that runs for days on a disk that fills up now
// and then must not lose a file descriptor per failed append.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { appendJsonLine } from '../../src/core/team/jsonl';

const openFds = async () => (await readdir('/proc/self/fd')).length;

test('a failed append (ENOSPC) closes its file handle', { skip: !existsSync('/dev/full') && 'needs /dev/full (Linux)' }, async () => {
  // /dev/full opens for appending like a file and refuses every write with ENOSPC.
  await assert.rejects(appendJsonLine('/dev/full', { warm: true }), { code: 'ENOSPC' });
  await new Promise((r) => setTimeout(r, 50));
  const before = await openFds();
  for (let i = 0; i < 20; i++) await assert.rejects(appendJsonLine('/dev/full', { i }), { code: 'ENOSPC' });
  await new Promise((r) => setTimeout(r, 50));
  const after = await openFds();
  assert.ok(after - before < 3, `${after - before} file descriptors left open by 20 failed appends`);
});

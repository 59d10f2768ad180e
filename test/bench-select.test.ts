// `npm run bench -- <prefix>` selects by benchmark name as well as by file name: the
// names the docs and issues use (`runtime.wake`) are not file names (runtime-wake.bench.ts).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const repo = join(__dirname, '..', '..');
const list = async (...prefixes: string[]) =>
  (await promisify(execFile)(process.execPath, [join(repo, 'scripts', 'bench.mjs'), '--list', ...prefixes], { cwd: repo })).stdout.trim().split('\n').filter(Boolean);

test('bench prefixes match benchmark names and file names', async () => {
  assert.deepEqual(await list('runtime.wake'), ['bench/runtime-wake.bench.ts']);
  assert.deepEqual(await list('tasks.claim'), ['bench/tasks.bench.ts']);
  assert.deepEqual(await list('runtime-wake'), ['bench/runtime-wake.bench.ts']);
  assert.deepEqual(await list('no.such.bench'), []);
});

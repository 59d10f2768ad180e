// list_dir, glob and grep over a folder and a file the user may not read: the answer names
// them as unreadable, everything else is still found, nothing crashes (docs/tools.md).
// Root reads mode-000 folders anyway, so under root the tools run as user nobody
// (setpriv, else runuser), in a process of their own with their worker beside them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { tempDir } from '../helpers/tmp';

const repo = path.resolve(__dirname, '..', '..', '..');
const run = promisify(execFile);

/** How to run a command as an unprivileged user here, or why we cannot. */
async function asNobody(): Promise<{ prefix: string[] } | { skip: string }> {
  if (process.getuid?.() !== 0) return { prefix: [] };
  for (const [bin, args] of [['/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups']], ['/usr/sbin/runuser', ['-u', 'nobody', '--']]] as const) {
    if (await access(bin).then(() => true, () => false)) return { prefix: [bin, ...args] };
  }
  return { skip: 'running as root and neither setpriv nor runuser is installed, so no unprivileged user can be tried' };
}

test('an unreadable folder and file are named; the rest is listed, globbed and searched', async (t) => {
  const who = await asNobody();
  if ('skip' in who) return t.skip(who.skip);
  // The bundled tools and their worker, where user nobody may read them.
  const bin = await tempDir(t, 'agent-teams-search-bin-');
  for (const [entry, out] of [['test/search/fixtures/search-cli.ts', 'search-cli.js'], ['src/core/exec/search/search-worker.ts', 'search-worker.js']]) {
    await build({ entryPoints: [path.join(repo, entry)], outfile: path.join(bin, out), bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });
  }
  const root = await tempDir(t, 'agent-teams-unreadable-');
  const files: Record<string, string> = { 'src/a.ts': 'const needle = 1;\n', 'secret/b.ts': 'needle\n', 'pub/c.ts': 'x\nneedle\n', 'pub/locked.ts': 'needle\n' };
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  for (const d of [bin, root, path.join(root, 'src'), path.join(root, 'pub')]) await chmod(d, 0o755);
  for (const f of ['search-cli.js', 'search-worker.js']) await chmod(path.join(bin, f), 0o644);
  await chmod(path.join(root, 'secret'), 0o000);
  await chmod(path.join(root, 'pub', 'locked.ts'), 0o000);
  const cmd = [...who.prefix, process.execPath, path.join(bin, 'search-cli.js'), root];
  const r = await run(cmd[0]!, cmd.slice(1), { cwd: bin, timeout: 60_000 })
    .finally(() => chmod(path.join(root, 'secret'), 0o755)); // so a non-root user can remove it
  assert.equal(r.stderr, '');
  const out = JSON.parse(r.stdout) as { list: string; glob: string; grep: string; grepOne: string };
  // list_dir of the root reads only the root: the locked folder is one of its entries.
  assert.match(out.list, /^ {2}secret\/$/m);
  assert.match(out.list, /^ {2}src\/$/m);
  // glob: the readable files, and the folder that could not be read, by name and reason.
  assert.deepEqual(out.glob.split('\n').filter((l) => l.endsWith('.ts')), ['pub/c.ts', 'pub/locked.ts', 'src/a.ts']);
  assert.match(out.glob, /1 folder could not be read: secret \(EACCES\)\./);
  // grep: matches from the readable files; the folder and the file it could not open named.
  assert.deepEqual(out.grep.split('\n').filter((l) => /^\S+:\d+:/.test(l)), ['pub/c.ts:2:needle', 'src/a.ts:1:const needle = 1;']);
  assert.match(out.grep, /1 folder could not be read: secret \(EACCES\)\./);
  assert.match(out.grep, /1 file could not be read: pub\/locked.ts \(EACCES\)\./);
  assert.match(out.grepOne, /^pub\/c.ts:2:needle$/m);
  assert.match(out.grepOne, /1 file could not be read: pub\/locked.ts \(EACCES\)\./);
});

// list_dir / glob / grep engines (docs/tools.md): confinement by real path, .gitignore,
// binary and huge files, capped output with counts, and a catastrophic regular
// expression that is stopped by the time budget while the host's loop keeps running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceFs } from '../../src/core/exec/workspace-fs';
import { glob, grep, listDir } from '../../src/core/exec/search/search';
import { tempDir } from '../helpers/tmp';

async function tree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

test('grep: file, line and text per match; .gitignore (nested, negated) respected; team folders skipped', async (t) => {
  const root = await tempDir(t);
  await tree(root, {
    '.gitignore': 'dist/\n*.log\n!keep.log\n',
    'src/a.ts': 'const needle = 1;\nother\n  needle();\r\n',
    'src/sub/.gitignore': 'gen.ts\n',
    'src/sub/gen.ts': 'needle',
    'src/sub/b.ts': 'no\nneedle here',
    'dist/out.js': 'needle',
    'x.log': 'needle',
    'keep.log': 'needle',
    '.team/transcripts/lead.jsonl': 'needle',
    '.git/config': 'needle',
  });
  const out = await grep({ fs: new WorkspaceFs(root) }, { pattern: 'needle' });
  assert.equal(out.split('\n').filter((l) => /^\S+:\d+:/.test(l)).join('\n'), [
    'keep.log:1:needle', 'src/a.ts:1:const needle = 1;', 'src/a.ts:3:  needle();', 'src/sub/b.ts:2:needle here',
  ].join('\n'));
  assert.match(out, /Searched 5 files/);
  assert.match(await grep({ fs: new WorkspaceFs(root) }, { pattern: 'NEEDLE', ignore_case: true, path: 'src', glob: '*.ts' }), /src\/sub\/b.ts:2:needle here/);
  assert.match(await grep({ fs: new WorkspaceFs(root) }, { pattern: 'needle', path: 'src/a.ts' }), /^src\/a.ts:1:/);
  assert.match(await grep({ fs: new WorkspaceFs(root) }, { pattern: 'nothing-like-this' }), /No matches for \/nothing-like-this\/ in 5 files/);
});

test('grep caps its output and says how much was left out', async (t) => {
  const root = await tempDir(t);
  await tree(root, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'hit\nhit\n'])));
  const out = await grep({ fs: new WorkspaceFs(root) }, { pattern: 'hit', max_results: 5 });
  assert.equal(out.split('\n').filter((l) => l.includes(':hit')).length, 5);
  assert.match(out, /\[Showing 5 of 60 matches in 30 files; 55 not shown\./);
});

test('binary files are skipped and a 1 GB file is named, not read', async (t) => {
  const root = await tempDir(t);
  await tree(root, { 'img.bin': Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]), 'ok.txt': 'needle' });
  const big = await open(path.join(root, 'huge.log'), 'w');
  await big.truncate(1024 ** 3); // sparse: 1 GB without writing it
  await big.close();
  const started = Date.now();
  const out = await grep({ fs: new WorkspaceFs(root) }, { pattern: 'needle' });
  assert.ok(Date.now() - started < 5000, 'the 1 GB file is not read');
  assert.match(out, /^ok.txt:1:needle/);
  assert.match(out, /Skipped 1 binary file\./);
  assert.match(out, /Skipped 1 file too large to search: huge.log \(1024 MB\)/);
});

test('confinement: .. and absolute paths and globs are refused; symlinks out and loops are not followed', async (t) => {
  const outside = await tempDir(t);
  const root = await tempDir(t);
  await tree(outside, { 'secret.txt': 'needle' });
  await tree(root, { 'in.txt': 'needle' });
  await symlink(outside, path.join(root, 'out-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'out-file.txt'));
  await symlink(root, path.join(root, 'loop'));
  await symlink('in.txt', path.join(root, 'link-in.txt'));
  const ctx = { fs: new WorkspaceFs(root) };
  const out = await grep(ctx, { pattern: 'needle' });
  assert.doesNotMatch(out, /secret|out-file|loop/);
  assert.match(out, /in.txt:1:needle\nlink-in.txt:1:needle/);
  await assert.rejects(grep(ctx, { pattern: 'x', path: '..' }), /outside the workspace/);
  await assert.rejects(grep(ctx, { pattern: 'x', path: outside }), /outside the workspace/);
  await assert.rejects(grep(ctx, { pattern: 'x', path: 'out-dir' }), /points outside the workspace/);
  await assert.rejects(glob(ctx, { pattern: '../**' }), /climbs out with "\.\."/);
  await assert.rejects(glob(ctx, { pattern: '/etc/*' }), /is absolute/);
  await assert.rejects(grep(ctx, { pattern: 'x', glob: '../*' }), /climbs out/);
  await assert.rejects(grep(ctx, { pattern: '(' }), /invalid regular expression/);
  assert.equal(await glob(ctx, { pattern: '**/*.txt' }), 'in.txt\nlink-in.txt');
});

test('a catastrophic regular expression is stopped by the time budget; the loop keeps running', async (t) => {
  const root = await tempDir(t);
  await tree(root, { 'a.txt': 'fine match\n', 'b.txt': `${'a'.repeat(40)}!\n` });
  let ticks = 0;
  let worstGap = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstGap = Math.max(worstGap, now - last);
    last = now;
    ticks++;
  }, 10);
  try {
    const started = Date.now();
    const out = await grep({ fs: new WorkspaceFs(root), timeBudgetMs: 300 }, { pattern: '^(a+)+$|match' });
    assert.ok(Date.now() - started < 5000);
    assert.match(out, /a.txt:1:fine match/, 'what was found before is kept');
    assert.match(out, /too slow \(catastrophic backtracking\?\)/);
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 20, `timers ran (${ticks})`);
  assert.ok(worstGap < 500, `the loop never stalled (worst gap ${Math.round(worstGap)} ms)`);
  // The next search gets a fresh worker.
  assert.match(await grep({ fs: new WorkspaceFs(root) }, { pattern: 'fine' }), /a.txt:1:fine match/);
});

test('glob and list_dir: gitignore, folders first, hints and caps', async (t) => {
  const root = await tempDir(t);
  await tree(root, { '.gitignore': 'node_modules/\n', 'node_modules/x/index.js': '', 'src/a.ts': '', 'src/b/c.ts': '', 'README.md': '' });
  const ctx = { fs: new WorkspaceFs(root) };
  assert.equal(await glob(ctx, { pattern: 'src/**/*.ts' }), 'src/a.ts\nsrc/b/c.ts');
  assert.equal(await glob(ctx, { pattern: '**/*.ts', path: 'src/b' }), 'src/b/c.ts');
  assert.match(await glob(ctx, { pattern: '*.ts' }), /use \*\*\/\*\.ts to look in subfolders/);
  assert.equal(await glob(ctx, { pattern: '**/*.js' }), 'No files match **/*.js.');
  assert.equal(await listDir(ctx, {}), './\n  src/\n  .gitignore\n  README.md');
  assert.equal(await listDir(ctx, { path: 'src' }), 'src/\n  b/\n  a.ts');
  await assert.rejects(listDir(ctx, { path: 'README.md' }), /is not a folder/);
  assert.match(await grep({ ...ctx, hidden: (p) => p === 'README.md' }, { pattern: '^$' }), /\d+ match(es)? in files your Read rules deny (was|were) left out\./);
});

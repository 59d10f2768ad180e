// File ownership's overlap check (src/core/team/file-ownership.ts): never says "disjoint" for
// two globs that match a common path (checked against the matcher on random globs and paths),
// and tells apart the sets a team really splits work by.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { globMatcher } from '../../src/core/permissions/path-glob';
import { claimOverlap, globsMayOverlap, normalizeGlob, ownedElsewhere } from '../../src/core/team/file-ownership';
import type { Task } from '../../src/shared/schemas';

test('sound: two globs that both match some path are always reported as overlapping', () => {
  const segs = ['src', 'lib', 'a.ts', 'b.md', '*', '*.ts', '*.md', 'a*', '**', '?.ts', 'x'];
  const names = ['src', 'lib', 'a.ts', 'b.md', 'x', 'ab.ts', 'c.ts'];
  const rnd = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  const glob = () => Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => rnd(segs)).join('/');
  let shared = 0;
  let disjoint = 0;
  for (let i = 0; i < 1500; i++) {
    const [a, b] = [glob(), glob()];
    const [ma, mb] = [globMatcher(a), globMatcher(b)];
    const may = globsMayOverlap(a, b);
    assert.equal(may, globsMayOverlap(b, a), `symmetric: ${a} vs ${b}`);
    if (!may) disjoint++;
    for (let k = 0; k < 20; k++) {
      const p = Array.from({ length: 1 + Math.floor(Math.random() * 5) }, () => rnd(names)).join('/');
      if (ma(p) && mb(p)) {
        shared++;
        assert.ok(may, `${a} and ${b} both match ${p}, but were called disjoint`);
      }
    }
  }
  assert.ok(shared > 50 && disjoint > 200, `exercised both ways (${shared} shared paths, ${disjoint} disjoint pairs)`);
});

test('the splits a team makes are told apart; what cannot be seen through counts as overlapping', () => {
  const no = [['src/a/**', 'src/b/**'], ['src/**/*.ts', 'src/**/*.md'], ['docs/*.md', 'src/*.md'], ['src/a.ts', 'src/b.ts'], ['src/*', 'src/x/y.ts']];
  const yes = [['src/**', '**/*.ts'], ['src/a.ts', 'src/*.ts'], ['src/**', 'src/parser/x.ts'], ['src/{a,b}/*.ts', 'src/*/x.*'], ['**', 'README.md']];
  for (const [a, b] of no) assert.equal(globsMayOverlap(a!, b!), false, `${a} vs ${b}`);
  for (const [a, b] of yes) assert.equal(globsMayOverlap(a!, b!), true, `${a} vs ${b}`);
});

test('globs are workspace-relative: a folder means everything in it; absolute and .. are refused', () => {
  assert.equal(normalizeGlob('./src/'), 'src/**');
  assert.throws(() => normalizeGlob('/etc/passwd'), /absolute/);
  assert.throws(() => normalizeGlob('src/../../x'), /leaves the workspace/);
  const task = (id: number, owner: string, files: string[], status: Task['status'] = 'in_progress'): Task =>
    ({ id, subject: `t${id}`, description: '', status, owner, blockedBy: [], files });
  const board = [task(1, 'ann', ['src/parser/**']), task(2, 'ben', ['docs/**'], 'completed')];
  assert.equal(ownedElsewhere(board, 'src/parser/x.ts', 'ben')?.id, 1);
  assert.equal(ownedElsewhere(board, 'src/parser/x.ts', 'ann'), undefined, 'its owner may');
  assert.equal(ownedElsewhere(board, 'docs/a.md', 'ann'), undefined, 'a completed task owns nothing');
  assert.match(claimOverlap(task(3, '', ['src/**'], 'pending'), board) ?? '', /in-progress task #1 "t1" \(ann\): src\/\*\* and src\/parser\/\*\*/);
  assert.equal(claimOverlap(task(4, '', ['lib/**'], 'pending'), board), null);
});

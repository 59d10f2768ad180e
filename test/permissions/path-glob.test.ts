// Path patterns of Edit/Write/Read rules: with several `**` they are matched folder by folder
// (src/core/permissions/path-glob.ts) with picomatch's answers, in time proportional to
// pattern × path instead of picomatch's regex, which backtracks for minutes on a deep path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import picomatch from 'picomatch';
import { globMatcher } from '../../src/core/permissions/path-glob';
import { decideFile } from '../../src/core/permissions/decide';

test('three or more ** match as picomatch does (random patterns not ending in **), and any pattern as before', () => {
  const segs = ['a', 'b', '.c', '*', 'a*', '**', '?'];
  const names = ['a', 'b', '.c', 'ab', 'ba'];
  const rnd = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  let many = 0;
  for (let i = 0; i < 6000; i++) {
    const parts = Array.from({ length: 2 + Math.floor(Math.random() * 6) }, () => rnd(segs));
    // Half of them with three ** among the other folders.
    if (i % 2) for (let k = 0; k < 3; k++) parts.splice(Math.floor(Math.random() * parts.length), 0, '**');
    const pattern = parts.join('/');
    const path = Array.from({ length: 1 + Math.floor(Math.random() * 6) }, () => rnd(names)).join('/');
    // Ending in ** after several **, picomatch's answers have quirks (docs/permissions.md).
    const globstars = parts.filter((p, j) => p === '**' && parts[j - 1] !== '**').length;
    if (globstars >= 3 && pattern.endsWith('**')) continue;
    if (globstars >= 3) many++;
    assert.equal(globMatcher(pattern)(path), picomatch(pattern, { dot: true })(path), `${pattern} on ${path}`);
  }
  assert.ok(many > 300, `${many} patterns with three or more **`);
  assert.equal(globMatcher('/etc/**/x/**/y/**/z')('/etc/a/x/b/y/z'), true);
  assert.equal(globMatcher('/etc/**/x/**/y/**/z')('/usr/a/x/b/y/z'), false);
  assert.equal(globMatcher('a/**/b/**/c/**')('a/b/c'), true, 'a trailing ** after a literal folder may match nothing');
  assert.equal(globMatcher('a/**/b/**/*/**')('a/b/c'), false, 'after a wildcard it needs one more name, as picomatch has it');
});

test('a rule with many ** decides at once on a deep path (picomatch alone: minutes)', () => {
  const rule = `Edit(${'a/**/'.repeat(8)}b)`;
  const deep = `${'a/'.repeat(60)}a`;
  const started = performance.now();
  assert.equal(decideFile({ deny: [rule] }, 'Edit', deep, `/w/${deep}`), undefined);
  assert.equal(decideFile({ deny: [rule] }, 'Edit', `${deep}/b`, `/w/${deep}/b`)?.verdict, 'deny');
  assert.ok(performance.now() - started < 1000, `took ${performance.now() - started} ms`);
});

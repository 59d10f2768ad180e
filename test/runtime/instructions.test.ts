// Project instructions: headings naming each file, a cap with a note, invalid UTF-8,
// binary files and links out of the workspace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadInstructions, phaseSystem } from '../../src/core/runtime/instructions';
import { tempDir } from '../helpers/tmp';

test('AGENTS.md, CLAUDE.md and .team/instructions.md, each under a heading naming it', async (t) => {
  const root = await tempDir(t);
  assert.equal(await loadInstructions(root), '');
  assert.equal(await phaseSystem('BASE', root), 'BASE');
  await writeFile(path.join(root, 'AGENTS.md'), '\uFEFFUse pnpm.\n');
  await writeFile(path.join(root, 'CLAUDE.md'), 'Run tests with `pnpm t`.');
  await mkdir(path.join(root, '.team'));
  await writeFile(path.join(root, '.team', 'instructions.md'), 'Team rule: small commits.');
  const s = await phaseSystem('BASE', root);
  assert.match(s, /^BASE\n\n# Project instructions\n/);
  assert.match(s, /## AGENTS.md\n\nUse pnpm\.\n\n## CLAUDE.md\n\nRun tests with `pnpm t`\.\n\n## \.team\/instructions\.md\n\nTeam rule: small commits\.$/);
});

test('a 10 MB file is cut with a note; invalid UTF-8 and binary files are said so; links out are not read', async (t) => {
  const root = await tempDir(t);
  const outside = await tempDir(t);
  const fh = await open(path.join(root, 'AGENTS.md'), 'w');
  await fh.write(Buffer.alloc(10 * 1024 * 1024, 'é'.repeat(1000)));
  await fh.close();
  await writeFile(path.join(root, 'CLAUDE.md'), Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x21]));
  await writeFile(path.join(outside, 'secret'), 'AWS_SECRET=1');
  await mkdir(path.join(root, '.team'));
  await symlink(path.join(outside, 'secret'), path.join(root, '.team', 'instructions.md'));
  const started = Date.now();
  const s = await loadInstructions(root);
  assert.ok(Date.now() - started < 2000);
  assert.ok(s.length < 40_000, `capped (${s.length} chars)`);
  assert.match(s, /\[AGENTS.md was cut here: it is 10\.0 MB; only the first 32 KB are given\./);
  assert.doesNotMatch(s, /\uFFFD\n\n\[AGENTS/, 'the cut falls between characters');
  assert.match(s, /## CLAUDE.md\n\nhi\uFFFD\uFFFD!\n\n\[CLAUDE.md is not valid UTF-8/);
  assert.match(s, /\[\.team\/instructions.md is a link to a file outside the workspace; it was not read\.\]/);
  assert.doesNotMatch(s, /AWS_SECRET/);
  await writeFile(path.join(root, 'CLAUDE.md'), Buffer.from([1, 0, 2]));
  assert.match(await loadInstructions(root), /\[CLAUDE.md looks binary/);
});

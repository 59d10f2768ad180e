// Architecture rules the code must keep (ARCHITECTURE.md).
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const repo = join(__dirname, '..', '..');

async function sources(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await sources(p, out);
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

test('src/core and src/shared never import vscode', async () => {
  const offenders: string[] = [];
  for (const dir of ['src/core', 'src/shared', 'src/cli']) {
    for (const f of await sources(join(repo, dir)).catch(() => [])) {
      const text = await readFile(f, 'utf8');
      if (/from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\)/.test(text)) offenders.push(relative(repo, f));
    }
  }
  assert.deepEqual(offenders, []);
});

test('no synchronous fs or child-process calls in src/ (the extension host must never block)', async () => {
  const offenders: string[] = [];
  const SYNC = /\b(execSync|spawnSync|execFileSync|readFileSync|writeFileSync|appendFileSync|renameSync|readdirSync|statSync|mkdirSync|unlinkSync|existsSync|rmSync|copyFileSync|openSync|lstatSync|realpathSync)\s*\(/;
  for (const f of await sources(join(repo, 'src'))) {
    const lines = (await readFile(f, 'utf8')).split('\n');
    lines.forEach((l, i) => {
      if (SYNC.test(l) && !l.trim().startsWith('//')) offenders.push(`${relative(repo, f)}:${i + 1}`);
    });
  }
  assert.deepEqual(offenders, []);
});

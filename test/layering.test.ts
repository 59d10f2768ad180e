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
  const files = await sources(join(repo, 'src'));
  // Code that runs only inside a worker thread (marked so on its first line) blocks nobody
  // but that worker; it must not be imported by code outside the worker.
  const workerOnly = new Set<string>();
  for (const f of files) if ((await readFile(f, 'utf8')).startsWith('// @worker-thread-only')) workerOnly.add(f);
  for (const f of files) {
    const text = await readFile(f, 'utf8');
    if (workerOnly.has(f)) continue;
    for (const w of workerOnly) {
      const name = w.replace(/\.tsx?$/, '').split('/').pop()!;
      if (new RegExp(`^import (?!type)[^;]*from '\\./${name}'`, 'm').test(text)) offenders.push(`${relative(repo, f)} imports worker-only ${name}`);
    }
    const lines = text.split('\n');
    lines.forEach((l, i) => {
      if (SYNC.test(l) && !l.trim().startsWith('//')) offenders.push(`${relative(repo, f)}:${i + 1}`);
    });
  }
  assert.deepEqual(offenders, []);
});

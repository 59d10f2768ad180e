// The layers of ARCHITECTURE.md, checked on the sources: the core and the shared schemas never
// import vscode, and the webview bundle imports neither vscode nor Node built-ins.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const root = join(__dirname, '..', '..', '..');

async function sources(dir: string, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await sources(p, out);
    else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

async function offenders(dir: string, forbidden: RegExp): Promise<string[]> {
  const bad: string[] = [];
  for (const f of await sources(join(root, dir))) {
    const text = await readFile(f, 'utf8');
    for (const m of text.matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)) {
      if (forbidden.test(m[1]!)) bad.push(`${relative(root, f)} imports ${m[1]}`);
    }
  }
  return bad;
}

describe('layering', () => {
  it('src/core and src/shared never import vscode', async () => {
    assert.deepEqual([...await offenders('src/core', /^vscode$/), ...await offenders('src/shared', /^vscode$/)], []);
  });

  it('src/webview imports neither vscode, Node built-ins nor the VS Code layer', async () => {
    assert.deepEqual(await offenders('src/webview', /^(vscode|node:.*|fs|path|child_process)$|\/vscode\//), []);
  });
});

// Activation stays lean (docs/activation.md): the first bundle (dist/extension.js) holds only
// the VS Code layer's activation modules (src/vscode/activation/) — no core, no shared schemas, no node_modules (zod,
// yaml, the SDKs) — and requires nothing but `vscode` and the engine; no module is in both
// bundles, so no class or module-level state exists twice. Reads the esbuild metafiles that
// `node esbuild.mjs` writes to dist/meta/ (every test run builds dist/ first).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const repo = join(__dirname, '..', '..', '..');

interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { bytes: number; imports: { path: string; external?: boolean }[] }>;
}

async function meta(name: string): Promise<Metafile> {
  return JSON.parse(await readFile(join(repo, 'dist', 'meta', `${name}.json`), 'utf8')) as Metafile;
}

/** The first bundle's own size, whether or not the build was minified. */
const LEAN_MAX_BYTES = 12 * 1024;

describe('the first bundle', () => {
  it('holds only activation modules of the VS Code layer', async () => {
    const inputs = Object.keys((await meta('extension')).inputs);
    assert.deepEqual(inputs.filter((p) => !p.startsWith('src/vscode/activation/')), [], 'no core, shared, node_modules or other VS Code module at activation');
    assert.ok(inputs.includes('src/vscode/activation/extension.ts'));
    assert.ok(inputs.length <= 4, `few modules: ${inputs.join(', ')}`);
  });

  it('requires only vscode and the engine, and stays small', async () => {
    const out = Object.entries((await meta('extension')).outputs).find(([f]) => f.endsWith('extension.js'))!;
    assert.ok(out[1].bytes <= LEAN_MAX_BYTES, `extension.js is ${out[1].bytes} bytes (at most ${LEAN_MAX_BYTES})`);
    assert.deepEqual([...new Set(out[1].imports.map((i) => i.path))].sort(), ['./engine.js', 'vscode']);
    const text = await readFile(join(repo, 'dist', 'extension.js'), 'utf8');
    for (const heavy of ['zod', '@anthropic-ai/sdk', 'agent-runner', 'team-session']) {
      assert.ok(!text.includes(heavy), `extension.js mentions ${heavy}`);
    }
  });

  it('shares no module with the engine', async () => {
    const engine = new Set(Object.keys((await meta('engine')).inputs));
    const both = Object.keys((await meta('extension')).inputs).filter((p) => engine.has(p));
    assert.deepEqual(both, []);
    assert.ok(engine.has('src/vscode/activation/surface.ts') && engine.has('src/core/session/team-session.ts'));
  });
});

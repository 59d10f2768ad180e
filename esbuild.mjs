// Builds the product bundles (dist/) and, with --tests, transpiles src/test/bench to out/
// file by file so node:test and child-process fixtures can load them.
import * as esbuild from 'esbuild';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

async function exists(p) {
  try { await stat(p); return true; } catch { return false; }
}

async function walk(dir, out = []) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) { if (entry.name !== '.tmp' && entry.name !== 'node_modules') await walk(p, out); }
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const nodeBundles = [
  { in: 'src/vscode/extension.ts', out: 'dist/extension.js', external: ['vscode'] },
  { in: 'src/cli/main.ts', out: 'dist/cli.js', external: [], banner: '#!/usr/bin/env node' },
  { in: 'src/demo.ts', out: 'dist/demo.js', external: [] },
];
const browserBundles = [{ in: 'src/webview/inbox.ts', out: 'dist/webview/inbox.js' }];

async function buildDist() {
  for (const b of nodeBundles) {
    if (!(await exists(b.in))) continue;
    await esbuild.build({
      entryPoints: [b.in], outfile: b.out, bundle: true, platform: 'node', format: 'cjs',
      target: 'node20', external: b.external, sourcemap: !production, minify: production,
      banner: b.banner ? { js: b.banner } : undefined, logLevel: 'warning',
    });
  }
  for (const b of browserBundles) {
    if (!(await exists(b.in))) continue;
    await esbuild.build({
      entryPoints: [b.in], outfile: b.out, bundle: true, platform: 'browser', format: 'iife',
      target: 'es2022', sourcemap: !production, minify: production, logLevel: 'warning',
      loader: { '.css': 'text' },
    });
  }
}

async function buildTests() {
  await rm('out', { recursive: true, force: true });
  const files = [];
  for (const dir of ['src', 'test', 'bench']) if (await exists(dir)) await walk(dir, files);
  await esbuild.build({
    entryPoints: files, outdir: 'out', outbase: '.', bundle: false, platform: 'node',
    format: 'cjs', target: 'node20', sourcemap: 'inline', logLevel: 'warning',
  });
}

await buildDist();
if (args.has('--tests')) await buildTests();

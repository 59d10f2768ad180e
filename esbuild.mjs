// Builds the product bundles (dist/) and, with --tests, transpiles src/test/bench to out/
// file by file so node:test and child-process fixtures can load them.
import * as esbuild from 'esbuild';
import { buildNetbridge } from './scripts/build-netbridge.mjs';
import { cp, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const args = new Set(argv);
const production = args.has('--production');
// --dist <dir>: where the product bundles go (default dist/; the benchmarks build elsewhere).
const distDir = argv.includes('--dist') ? argv[argv.indexOf('--dist') + 1] : 'dist';

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

// The extension loads the Anthropic SDK (over half of its code) from a bundle of its own,
// required only when the first agent starts, so activation does not read or parse it.
// The SDK holds no state our code shares, so a separate copy of it is safe.
const sdkApart = {
  name: 'sdk-apart',
  setup(build) {
    build.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, () => ({ path: './anthropic-sdk.js', external: true }));
    // The `openai` client likewise (docs/models.md), for `openai:` models.
    build.onResolve({ filter: /^openai$/ }, () => ({ path: './openai-sdk.js', external: true }));
  },
};

// The MCP SDK likewise (src/core/mcp/sdk-entry.ts → dist/mcp-sdk.js), imported only when a
// host first starts its MCP servers (docs/mcp.md).
const mcpSdkApart = {
  name: 'mcp-sdk-apart',
  setup(build) {
    build.onResolve({ filter: /\/sdk-entry(\.js)?$/ }, () => ({ path: './mcp-sdk.js', external: true }));
  },
};

// zod re-exports every one of its ~50 error-message locales as `z.locales`, which we never
// use: its locales index is replaced with English only (a third of the extension bundle).
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.(js|cjs)$/ }, (a) => (a.resolveDir.includes(`${join('node_modules', 'zod')}`)
      ? { path: 'zod-locales', namespace: 'zod-en' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'zod-en' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';", resolveDir: process.cwd(), loader: 'js',
    }));
  },
};

// The first bundle (extension.js) is activation's: views and commands on screen, nothing
// else. It requires the engine (src/vscode/activation/surface.ts and everything else: the team
// session, the providers, zod, yaml…) from dist/engine.js right after activation, so no module is in both (docs/activation.md).
const engineApart = {
  name: 'engine-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/surface$/ }, () => ({ path: './engine.js', external: true }));
  },
};

// The container backend (dockerode, ssh2: docs/containers.md) from a bundle of its own, required
// by core/container/seats.ts only when a teammate first runs in a container.
const containerApart = {
  name: 'container-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/backend$/ }, (a) => (/container[\\/]seats\.ts$/.test(a.importer) ? { path: './container-backend.js', external: true } : undefined));
  },
};

// jsonc-parser's package main is UMD, loading its parts through a require() esbuild cannot
// follow; bundles take its ESM build (src/core/hooks/config.ts reads settings with it).
const JSONC_ESM = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };

const nodeBundles = [
  { in: 'src/vscode/activation/extension.ts', out: join(distDir, 'extension.js'), external: ['vscode'], plugins: [engineApart], meta: 'extension' },
  { in: 'src/vscode/activation/surface.ts', out: join(distDir, 'engine.js'), external: ['vscode'], plugins: [sdkApart, mcpSdkApart, containerApart, zodEnglishOnly], meta: 'engine' },
  // *.node: ssh2's optional native addons, loaded in a try.
  { in: 'src/core/container/backend.ts', out: join(distDir, 'container-backend.js'), external: ['*.node'] },
  // The bash parser behind permission rules (mvdan-sh, 1.5 MB) loads and parses in this worker
  // thread, never on the extension host's loop (src/core/permissions/shell-parser.ts finds it).
  { in: 'src/core/permissions/shell-worker.ts', out: join(distDir, 'shell-worker.js'), external: [] },
  // list_dir / glob / grep run in this worker thread (src/core/exec/search/search.ts finds it next to the bundle).
  { in: 'src/core/exec/search/search-worker.ts', out: join(distDir, 'search-worker.js'), external: [] },
  { in: 'src/vscode/models/anthropic-sdk.ts', out: join(distDir, 'anthropic-sdk.js'), external: [] },
  { in: 'src/vscode/models/openai-sdk.ts', out: join(distDir, 'openai-sdk.js'), external: [] },
  { in: 'src/core/mcp/sdk-entry.ts', out: join(distDir, 'mcp-sdk.js'), external: [] },
  // *.node: ssh2's optional native addons (through dockerode, `agent-teams containers`), loaded in a try.
  { in: 'src/cli/main.ts', out: join(distDir, 'cli.js'), external: ['*.node'], plugins: [containerApart, zodEnglishOnly], banner: '#!/usr/bin/env node' },
];
const browserBundles = [
  { in: 'src/webview/inbox.ts', out: join(distDir, 'webview/inbox.js') },
  { in: 'src/webview/transcript.ts', out: join(distDir, 'webview/transcript.js') },
];

async function buildDist() {
  for (const b of nodeBundles) {
    if (!(await exists(b.in))) continue;
    const result = await esbuild.build({
      entryPoints: [b.in], outfile: b.out, bundle: true, platform: 'node', format: 'cjs',
      target: 'node20', external: b.external, sourcemap: !production, minify: production,
      banner: b.banner ? { js: b.banner } : undefined, logLevel: 'warning', plugins: b.plugins ?? [zodEnglishOnly],
      metafile: !!b.meta, alias: JSONC_ESM,
    });
    // What each of the extension's two bundles holds, for test/vscode/lean-bundle.test.ts and
    // `node esbuild.mjs --analyze` (dist/meta/ does not ship: .vscodeignore is an allowlist).
    if (b.meta) {
      await mkdir(join(distDir, 'meta'), { recursive: true });
      await writeFile(join(distDir, 'meta', `${b.meta}.json`), JSON.stringify(result.metafile));
      if (args.has('--analyze')) console.log(`${b.out}:${await esbuild.analyzeMetafile(result.metafile)}`);
    }
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

// The container teammates' network bridge (native/netbridge.c, docs/containers.md): a static
// program per architecture, next to the container backend's bundle.
async function buildBridge() {
  const r = await buildNetbridge(join(distDir, 'netbridge'));
  for (const f of r.failed) console.warn(`[netbridge] build failed for ${f}: containers of that architecture run without network`);
  if (r.missing.length && production) console.warn(`[netbridge] not built for ${r.missing.join(', ')} (no C compiler for it; Debian: gcc-aarch64-linux-gnu): containers of that architecture run without network`);
}

await buildDist();
await buildBridge();
if (args.has('--tests')) {
  await buildTests();
  // Tests load the backend from out/src/core/container: the bridge goes next to it there too.
  await cp(join(distDir, 'netbridge'), join('out', 'src', 'core', 'container', 'netbridge'), { recursive: true });
}

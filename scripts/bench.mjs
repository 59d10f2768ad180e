// `npm run bench [-- <prefix>...]`: builds, then runs every out/bench/**/*.bench.js (or those
// whose file name or one of whose benchmark names starts with one of the prefixes: `runtime.wake`
// finds runtime-wake.bench) one after another as child processes, streaming their output.
// Exits non-zero if the build or any benchmark fails. `--list` prints what would run, unbuilt.
// Benchmarks run one at a time because they measure throughput and latency: two at once
// would load the machine and skew each other's figures.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const prefixes = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const repo = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

function run(args, opts = {}) {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: repo, ...opts });
    child.on('error', (err) => {
      console.error(err);
      done(1);
    });
    child.on('exit', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

async function walk(dir, out = []) {
  let entries = [];
  try { entries = await readdir(dir, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else if (e.name.endsWith('.bench.js')) out.push(p);
  }
  return out;
}

/**
 * Whether a benchmark file is selected: its file name starts with a prefix, or its source
 * names a benchmark that does (`bench('runtime.wake', …)`, `name: 'tasks.claim'`, or a
 * template such as `worktree.${phase}` whose fixed part the prefix extends).
 */
async function selected(sourceFile) {
  if (!prefixes.length) return true;
  const base = basename(sourceFile);
  if (prefixes.some((p) => base.startsWith(p))) return true;
  const src = await readFile(sourceFile, 'utf8').catch(() => '');
  const names = [...src.matchAll(/['"`]([a-z][a-z0-9_]*\.[a-z0-9_.]*)(\$\{)?/g)].map((m) => ({ name: m[1], open: !!m[2] }));
  return prefixes.some((p) => names.some(({ name, open }) => name.startsWith(p) || (open && p.startsWith(name))));
}

/** bench/<rel>.bench.ts for out/bench/<rel>.bench.js */
const sourceOf = (outFile, outRoot) => join(repo, 'bench', relative(join(outRoot, 'bench'), outFile).replace(/\.js$/, '.ts'));

if (process.argv.includes('--list')) {
  const sources = [];
  const walkTs = async (dir) => {
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walkTs(p);
      else if (e.name.endsWith('.bench.ts')) sources.push(p);
    }
  };
  await walkTs(join(repo, 'bench'));
  for (const f of sources.sort()) if (await selected(f)) console.log(relative(repo, f));
  process.exit(0);
}

let code = await run(['esbuild.mjs', '--tests']);
if (code !== 0) {
  console.error('bench: build failed');
  process.exit(code);
}

// Run from a private copy of out/: `npm test` (or another bench) rebuilding out/ meanwhile
// would delete the fixtures our child processes load halfway through a multi-minute run.
// The copy sits in a shadow of the repo (every other top-level entry symlinked) so that
// node_modules resolution and paths relative to a bench file (`../../dist`) still work.
const shadow = await mkdtemp(join(tmpdir(), 'agent-teams-bench-'));
try {
  for (const e of await readdir(repo)) {
    if (e !== 'out' && e !== '.git') await symlink(join(repo, e), join(shadow, e));
  }
  await cp(join(repo, 'out'), join(shadow, 'out'), { recursive: true });
} catch (err) {
  console.error(`bench: could not snapshot out/ (${err.message}); was it rebuilt concurrently? rerun`);
  await rm(shadow, { recursive: true, force: true });
  process.exit(1);
}
const snapshot = join(shadow, 'out');

let files = (await walk(join(snapshot, 'bench'))).sort();
const picked = [];
for (const f of files) if (await selected(sourceOf(f, snapshot)) || prefixes.some((p) => basename(f).startsWith(p))) picked.push(f);
files = picked;
if (files.length === 0) {
  console.error(`bench: no benchmark matches ${prefixes.length ? prefixes.join(', ') : 'out/bench/**/*.bench.js'}`);
  await rm(shadow, { recursive: true, force: true });
  process.exit(1);
}

const failed = [];
for (const file of files) {
  const name = relative(snapshot, file);
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  code = await run([file]);
  if (code !== 0) {
    // Once more before giving up: on a loaded machine a worker can be lost to a timeout; the
    // figures printed are then the second run's, said so.
    console.log(`=== ${name}: FAILED (exit ${code}) in ${((Date.now() - started) / 1000).toFixed(1)} s; running it again ===`);
    code = await run([file]);
  }
  console.log(`=== ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  if (code !== 0) failed.push(name);
}
await rm(shadow, { recursive: true, force: true });

if (failed.length) {
  console.error(`\nbench: ${failed.length} of ${files.length} failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\nbench: ${files.length} benchmark file(s) ok`);

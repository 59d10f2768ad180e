// `npm run bench [-- <prefix>...]`: builds, then runs every out/bench/**/*.bench.js (or those
// whose file name starts with one of the prefixes) one after another as child processes,
// streaming their output. Exits non-zero if the build or any benchmark fails.
// Benchmarks run one at a time because they measure throughput and latency: two at once
// would load the machine and skew each other's figures.
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
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
if (prefixes.length) files = files.filter((f) => prefixes.some((p) => basename(f).startsWith(p)));
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
  console.log(`=== ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  if (code !== 0) failed.push(name);
}
await rm(shadow, { recursive: true, force: true });

if (failed.length) {
  console.error(`\nbench: ${failed.length} of ${files.length} failed: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\nbench: ${files.length} benchmark file(s) ok`);

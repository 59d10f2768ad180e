// The one test command: build, typecheck, then every test under out/test with node:test.
// `--no-e2e` skips the code-server end-to-end suite (it provisions code-server + Chromium first).
import { spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageExtension } from './package.mjs';

const argv = process.argv.slice(2);
const noE2e = argv.includes('--no-e2e') || process.env.AGENT_TEAMS_NO_E2E === '1';
const filters = argv.filter((a) => !a.startsWith('--'));

function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', ...opts });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const totals = { pass: 0, fail: 0 };
// Runs node --test, echoing its output and adding its summary counts to `totals`. The
// summary lines are picked up as they stream by: a long failure report after them must not
// push them out of view.
function runTests(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let partial = '';
    let pass = null;
    let fail = null;
    let cancelled = 0;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^[ℹ#] (pass|fail|cancelled) (\d+)\s*$/.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
        if (m?.[1] === 'pass') pass = Number(m[2]);
        else if (m?.[1] === 'fail') fail = Number(m[2]);
        // A cancelled test (a file that never exits times out as one) fails the run: counted so.
        else if (m?.[1] === 'cancelled') cancelled = Number(m[2]);
      }
    });
    child.on('exit', (code, signal) => {
      totals.pass += pass ?? 0;
      totals.fail += fail === null ? (code ? 1 : 0) : fail + cancelled;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function walk(dir, out = []) {
  let entries = [];
  try { entries = await readdir(dir, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

let code = await run(process.execPath, ['esbuild.mjs', '--tests']);
if (code !== 0) process.exit(code);
if (!argv.includes('--no-typecheck')) {
  code = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']);
  if (code !== 0) { console.error('typecheck failed'); process.exit(code); }
}

let files = (await walk('out/test')).sort();
const isE2e = (f) => f.includes(`${join('out', 'test', 'e2e')}`);
if (noE2e) files = files.filter((f) => !isE2e(f));
if (filters.length) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (!noE2e && files.some(isE2e)) {
  code = await run(process.execPath, ['scripts/provision-e2e.mjs']);
  if (code !== 0) { console.error('e2e provisioning failed'); process.exit(code); }
}
const unit = files.filter((f) => !isE2e(f));
const e2e = files.filter(isE2e);
// The command sandbox's tests need bubblewrap and socat (docs/security.md); never fatal.
if (unit.length || e2e.length) await run(process.execPath, ['scripts/provision-sandbox.mjs']);
// The container tests need podman and a small local image (docs/containers.md); never fatal.
if (unit.some((f) => f.includes(join('test', 'container')))) await run(process.execPath, ['scripts/provision-containers.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
// Unit/integration files run two at a time; e2e files one at a time (each drives a whole VS Code).
const nodeArgs = ['--test', '--test-reporter=spec', '--test-timeout=600000'];
const all = [...unit, ...e2e];
if (all.length === 0) { console.error('no test files found'); process.exit(1); }
code = unit.length ? await runTests([...nodeArgs, '--test-concurrency=2', ...unit]) : 0;
if (e2e.length) {
  // One package for every e2e suite (test/e2e/harness/package.ts); a suite run alone makes its own.
  const vsix = join(tmpdir(), `agent-teams-e2e-${process.pid}.vsix`);
  const packaged = await packageExtension(vsix).then(() => true, (err) => { console.error(`package: ${err.message}`); return false; });
  if (packaged) process.env.AGENT_TEAMS_E2E_VSIX = vsix;
  const c2 = await runTests([...nodeArgs, '--test-concurrency=1', ...e2e]);
  await rm(vsix, { force: true });
  code = code || c2;
}
console.log(`\n${totals.pass} passed, ${totals.fail} failed`);
process.exit(code);

#!/usr/bin/env node
// Builds native/netbridge.c, the program that carries a container teammate's connections to
// the product's proxy (docs/containers.md, "Network"), into <dir>/netbridge-linux-<arch>:
// static, stripped, for every architecture this machine has a C compiler for — amd64 with the
// native `cc` on x86-64 (or x86_64-linux-gnu-gcc), arm64 with aarch64-linux-gnu-gcc (Debian:
// gcc-aarch64-linux-gnu, or `cc` on an arm64 machine). Rebuilt only when the source is newer.
// Never fatal: an architecture without a compiler (or whose static C library is missing) is said, and a container of that
// architecture then runs without network (the teammate is told why).
//
// Usage: node scripts/build-netbridge.mjs [<dir>]   (default dist/netbridge)
import { spawn } from 'node:child_process';
import { access, constants, mkdir, rename, stat } from 'node:fs/promises';
import { arch } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(repo, 'native', 'netbridge.c');

/** The compilers that build for each architecture here, in the order tried. */
export const TARGETS = {
  amd64: [...(arch() === 'x64' ? ['cc', 'gcc'] : []), 'x86_64-linux-gnu-gcc'],
  arm64: [...(arch() === 'arm64' ? ['cc', 'gcc'] : []), 'aarch64-linux-gnu-gcc'],
};

async function which(name) {
  for (const d of (process.env.PATH ?? '').split(delimiter)) {
    if (d && await access(join(d, name), constants.X_OK).then(() => true, () => false)) return join(d, name);
  }
  return null;
}

function compile(cc, out) {
  return new Promise((done) => {
    const child = spawn(cc, ['-static', '-Os', '-s', '-Wall', '-Wextra', '-Werror', '-o', out, SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b) => { err = (err + b).slice(-2000); });
    child.on('error', (e) => done(String(e)));
    child.on('exit', (code) => done(code === 0 ? null : err.trim() || `exit ${code}`));
  });
}

/** {built, fresh, missing, failed}: architectures built now, already up to date, without a compiler, and whose build failed (with why). */
export async function buildNetbridge(dir = join(repo, 'dist', 'netbridge')) {
  await mkdir(dir, { recursive: true });
  const src = (await stat(SOURCE)).mtimeMs;
  const result = { built: [], fresh: [], missing: [], failed: [] };
  for (const [target, compilers] of Object.entries(TARGETS)) {
    const out = join(dir, `netbridge-linux-${target}`);
    if (await stat(out).then((s) => s.mtimeMs >= src, () => false)) { result.fresh.push(target); continue; }
    let cc = null;
    for (const c of compilers) if ((cc = await which(c))) break;
    if (!cc) { result.missing.push(target); continue; }
    const err = await compile(cc, `${out}.part`);
    if (err) { result.failed.push(`${target} (${cc}): ${err.split('\n').slice(-3).join(' ')}`); continue; }
    await rename(`${out}.part`, out);
    result.built.push(target);
  }
  return result;
}

/**
 * For a .vsix that serves every container (scripts/package.mjs): on Debian/Ubuntu x86-64, the
 * arm64 cross compiler is installed with apt-get when missing (as root or with passwordless
 * sudo). Never fatal: says what it could not do.
 */
export async function provisionCrossCompiler() {
  if (process.platform !== 'linux' || arch() !== 'x64' || await which('aarch64-linux-gnu-gcc')) return;
  const apt = (args) => new Promise((done) => {
    const [cmd, ...rest] = process.getuid?.() === 0 ? ['apt-get', ...args] : ['sudo', '-n', 'apt-get', ...args];
    const child = spawn(cmd, rest, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    child.on('error', () => done(1));
    child.on('exit', (code) => done(code ?? 1));
  });
  console.error('[netbridge] installing the arm64 cross compiler (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross)');
  const ok = (await apt(['update', '-qq'])) === 0
    && (await apt(['install', '-y', '-qq', '--no-install-recommends', 'gcc-aarch64-linux-gnu', 'libc6-dev-arm64-cross'])) === 0;
  if (!ok) console.error('[netbridge] could not install it (needs apt-get and root or passwordless sudo)');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildNetbridge(process.argv[2] ? resolve(process.argv[2]) : undefined)
    .then((r) => console.log(JSON.stringify(r)))
    .catch((e) => { console.error(`build-netbridge: ${e.message}`); process.exit(1); });
}

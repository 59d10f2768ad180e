#!/usr/bin/env node
// Installs what the command sandbox needs on Linux (docs/security.md): bubblewrap and socat,
// from Debian's packages with apt-get (as root, or with passwordless sudo). Run by
// `npm test` before the unit and integration tests (the sandbox's tests skip, loudly, on a
// machine without them) and by scripts/provision-e2e.mjs for `npm start` and the e2e suite.
// Never fatal: a machine where it cannot install still runs everything else.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const NEEDED = [['bwrap', 'bubblewrap'], ['socat', 'socat']];

const onPath = (bin) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, bin)));

function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

export async function provisionSandbox() {
  if (process.platform !== 'linux') return;
  const missing = NEEDED.filter(([bin]) => !onPath(bin)).map(([, pkg]) => pkg);
  if (!missing.length) return;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = (args) => (sudo.length ? run(sudo[0], [...sudo.slice(1), 'apt-get', ...args]) : run('apt-get', args));
  console.error(`[provision-sandbox] installing Debian packages: ${missing.join(' ')}`);
  const ok = (await apt(['update', '-qq'])) === 0 && (await apt(['install', '-y', '-qq', '--no-install-recommends', ...missing])) === 0;
  if (!ok || NEEDED.some(([bin]) => !onPath(bin))) {
    console.error(`[provision-sandbox] could not install ${missing.join(' ')} (needs apt-get and root or passwordless sudo): the sandbox's tests will be skipped`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await provisionSandbox();

#!/usr/bin/env node
// Makes a container engine usable on this Linux machine for the container tests and benchmarks
// (docs/containers.md): Debian's podman with runc, the cgroupfs manager and no default ulimits
// (a containers.conf handed over through CONTAINERS_CONF), catatonit as the containers' init, and a small local image — a minimal
// Debian root with git made by debootstrap and imported with `podman import` — since no image
// registry is reachable from CI. Idempotent and cached: packages only when missing, the root's
// tarball under ~/.cache/agent-teams-e2e/containers, the image only when podman lacks it.
// Never fatal: it says what is missing and the container tests skip with that reason.
// It starts no service: each test file starts its own `podman system service` on a private
// socket (test/container/engine-fixture.ts), so nothing outlives `npm test`.
//
// Usage: node scripts/provision-containers.mjs   (prints one JSON line: {ok, conf, image, …})
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const IMAGE = 'localhost/agent-teams-e2e:bookworm';
export const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'agent-teams-e2e', 'containers');
export const CONF = join(CACHE, 'containers.conf');
const ROOTFS_TAR = join(CACHE, 'rootfs-bookworm.tar');
const MIRROR = 'http://deb.debian.org/debian';
// catatonit: the init the engine puts at pid 1 of each container (HostConfig.Init), reaping orphans.
// sshd: the tests reach the engine over ssh:// to 127.0.0.1 as a second machine would be reached.
const NEEDED = [['podman', 'podman'], ['runc', 'runc'], ['catatonit', 'catatonit'], ['debootstrap', 'debootstrap'], ['sshd', 'openssh-server']];
// What the root needs beyond minbase: git to clone and bundle the teammate's branch.
const INCLUDE = 'git,ca-certificates';

// runc (crun is not packaged for every machine), cgroupfs (no systemd as pid 1 here), no
// default ulimits (the machine's hard nofile limit is below podman's default), events to a
// file (no journald).
const CONF_TEXT = `[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
`;

const log = (msg) => console.error(`[provision-containers] ${msg}`);
const onPath = (bin) => ['/usr/sbin', '/sbin', ...(process.env.PATH ?? '').split(delimiter)].some((d) => d && existsSync(join(d, bin)));

function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', CONTAINERS_CONF: CONF, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    });
    let err = '';
    child.stderr.on('data', (b) => { err = (err + b).slice(-2000); });
    child.on('error', (e) => resolve({ code: 1, err: String(e) }));
    child.on('exit', (code) => resolve({ code: code ?? 1, err }));
  });
}

const asRoot = process.getuid?.() === 0;
const sudo = (cmd, args) => (asRoot ? run(cmd, args) : run('sudo', ['-n', cmd, ...args]));

async function packages() {
  const missing = NEEDED.filter(([bin]) => !onPath(bin)).map(([, pkg]) => pkg);
  if (!missing.length) return null;
  log(`installing Debian packages: ${missing.join(' ')}`);
  const ok = (await sudo('apt-get', ['update', '-qq'])).code === 0
    && (await sudo('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing])).code === 0;
  const still = NEEDED.filter(([bin]) => !onPath(bin)).map(([, pkg]) => pkg);
  return ok && !still.length ? null : `could not install ${still.join(' ')} (needs apt-get and root or passwordless sudo)`;
}

/** The minimal root as a tarball in the cache, made once (about 45 s). */
async function rootfs() {
  if (await stat(ROOTFS_TAR).then((s) => s.size > 0, () => false)) return null;
  if (!asRoot) return 'debootstrap needs root';
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-rootfs-'));
  try {
    log(`debootstrap bookworm (minbase + ${INCLUDE}) — once, cached in ${CACHE}`);
    const boot = await run('debootstrap', ['--variant=minbase', `--include=${INCLUDE}`, 'bookworm', dir, MIRROR]);
    if (boot.code !== 0) return `debootstrap failed: ${boot.err.trim().split('\n').pop()}`;
    // Apt's lists and caches, docs and locales: half the size, nothing a command needs.
    await Promise.all(['var/cache/apt', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man', 'usr/share/locale']
      .map((p) => run('sh', ['-c', `rm -rf "$1"/* `, 'sh', join(dir, p)])));
    const part = `${ROOTFS_TAR}.part`;
    const tar = await run('tar', ['-C', dir, '-cf', part, '.']);
    if (tar.code !== 0) return `tar failed: ${tar.err.trim()}`;
    await rename(part, ROOTFS_TAR);
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function image() {
  if ((await run('podman', ['image', 'exists', IMAGE])).code === 0) return null;
  const made = await rootfs();
  if (made) return made;
  log(`podman import ${IMAGE}`);
  const imp = await run('podman', ['import', '--change', 'CMD ["/bin/sh"]', ROOTFS_TAR, IMAGE]);
  return imp.code === 0 ? null : `podman import failed: ${imp.err.trim().split('\n').pop()}`;
}

/** {ok: true, conf, image, ms} or {ok: false, reason, ms}; never throws. */
export async function provisionContainers() {
  const started = Date.now();
  const done = (r) => ({ ...r, ms: Date.now() - started });
  if (process.platform !== 'linux') return done({ ok: false, reason: `no podman provisioning on ${process.platform}` });
  try {
    await mkdir(CACHE, { recursive: true });
    await writeFile(CONF, CONF_TEXT);
    const why = (await packages()) ?? (await image());
    if (why) {
      log(`${why}: the container tests will be skipped`);
      return done({ ok: false, reason: why });
    }
    return done({ ok: true, conf: CONF, image: IMAGE });
  } catch (e) {
    log(`failed: ${e?.message ?? e}: the container tests will be skipped`);
    return done({ ok: false, reason: String(e?.message ?? e) });
  }
}

// Run as a script (also through a symlink, as `npm run bench` does from its shadow copy).
if (process.argv[1] && fileURLToPath(import.meta.url) === (await realpath(process.argv[1]).catch(() => ''))) console.log(JSON.stringify(await provisionContainers()));

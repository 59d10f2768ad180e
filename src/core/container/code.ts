// The teammate's code in and out of its container (docs/containers.md, "How it works"): in, a git bundle of its branch
// copied through the engine's archive API and cloned inside — no bind mount of the user's
// repository, none of its `.git` (config, hooks, other branches), no key; out, a bundle made
// inside, copied back the same way and fetched by the host onto `team/<agent>` with hooks off,
// objects checked (`transfer.fsckObjects`) and nothing of the container's config read: a bundle
// carries objects and refs only.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { isControlPath } from '../merge/control-gate';
import { git } from '../worktree/git';
import type { CommandLoop } from './command-loop';
import { WORKDIR } from './lifecycle';
import { firstFileOfTar, tarOneFile } from './tar';

const OUT_BUNDLE = '/tmp/.agent-teams-out.bundle';
const GIT_TIMEOUT_MS = 300_000;

/**
 * The product's git runs nothing a repository names (the policy table's HOST_GIT_CONFIG,
 * applied by worktree/git.ts); objects from a container are also checked as they arrive.
 */
const HOST_GIT_GUARDS = ['-c', 'transfer.fsckObjects=true'];

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

async function inContainer(loop: CommandLoop, command: string, what: string): Promise<string> {
  const r = await loop.run(command, { cwd: '/', timeoutMs: GIT_TIMEOUT_MS, maxOutputBytes: 64 * 1024 });
  if (r.error || r.exitCode !== 0) throw new Error(`${what} failed in the container: ${r.error ?? `exit ${r.exitCode ?? r.signal}`}: ${r.output.trim().slice(-400)}`);
  return r.output;
}

async function withTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-teams-bundle-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Clones the host's `branch` into the container's WORKDIR unless a clone is already there (a
 * reattached container keeps its own work). The clone has no remote: nothing inside points back
 * at the user's machine.
 */
export async function cloneIn(container: Docker.Container, loop: CommandLoop, repo: string, branch: string, agent: string): Promise<'cloned' | 'kept'> {
  const has = await loop.run(`test -d ${WORKDIR}/.git`, { cwd: '/', timeoutMs: 30_000, maxOutputBytes: 1024 });
  if (has.exitCode === 0) return 'kept';
  // Two hosts may start the same teammate at once: each clones beside WORKDIR and renames its
  // clone over the empty folder; the rename of the second fails, and it keeps the first's.
  const nonce = randomBytes(6).toString('hex');
  const inBundle = `.agent-teams-in-${nonce}.bundle`;
  const tmp = `/tmp/.agent-teams-clone-${nonce}`;
  await withTemp(async (dir) => {
    const bundle = join(dir, 'in.bundle');
    await git([...HOST_GIT_GUARDS, 'bundle', 'create', bundle, `refs/heads/${branch}`], { cwd: repo, timeoutMs: GIT_TIMEOUT_MS });
    await container.putArchive(tarOneFile(inBundle, await readFile(bundle)), { path: '/tmp' });
  });
  const email = `${agent.replace(/[^a-zA-Z0-9._-]/g, '_')}@agent-teams.invalid`;
  const out = await inContainer(loop, [
    `git clone -q --branch ${quote(branch)} /tmp/${inBundle} ${tmp}`, `rm -f /tmp/${inBundle}`,
    `git -C ${tmp} remote remove origin`,
    `git -C ${tmp} config user.name ${quote(agent)}`, `git -C ${tmp} config user.email ${quote(email)}`,
    `{ mv -T ${tmp} ${WORKDIR} 2>/dev/null && echo cloned || { rm -rf ${tmp}; test -d ${WORKDIR}/.git && echo kept; }; }`,
  ].join(' && '), 'cloning the branch');
  return out.trim() === 'kept' ? 'kept' : 'cloned';
}

/**
 * The host's `branch`, made at `startRef` (default the checked-out commit) when it does not
 * exist yet: a new teammate's branch starts where the user is. An existing one is kept.
 */
export async function ensureHostBranch(repo: string, branch: string, startRef = 'HEAD'): Promise<'made' | 'kept'> {
  const has = await git(['rev-parse', '--verify', '-q', `refs/heads/${branch}`], { cwd: repo, allowFail: true });
  if (has.code === 0) return 'kept';
  await git(['branch', '--no-track', branch, startRef], { cwd: repo });
  return 'made';
}

export interface BroughtBack {
  /** The branch's tip on the host after the fetch. */
  tip: string;
  /** Whether new commits came back. */
  updated: boolean;
  /**
   * Control paths of the policy table (`.team/`, `.devcontainer/`, `.mcp.json`…) the new
   * commits change: the merge queue lands them only with the user's yes (docs/security.md).
   */
  controlPaths: string[];
}

/** The files among `changed` the merge queue's gate holds for the user (QUEUE_CONTROL_PATHS of the policy table). */
export function controlPathsIn(changed: readonly string[]): string[] {
  return changed.filter(isControlPath);
}

/**
 * Brings the container's `branch` back onto the host's `refs/heads/<branch>`: the container's
 * work is authoritative for its own branch (a rebase inside comes back as one), and nothing
 * else of the host's repository is touched.
 */
export async function bringBack(container: Docker.Container, loop: CommandLoop, repo: string, branch: string): Promise<BroughtBack> {
  const ref = `refs/heads/${branch}`;
  const hostTip = (await git(['rev-parse', '--verify', '-q', ref], { cwd: repo, allowFail: true })).stdout.trim();
  const inside = (await inContainer(loop, `cd ${WORKDIR} && git rev-parse --verify -q ${quote(ref)}`, 'reading the branch')).trim();
  if (inside === hostTip) return { tip: hostTip, updated: false, controlPaths: [] };
  // Only what the host lacks, when the container knows the host's tip.
  const basis = hostTip ? `$(git cat-file -e ${hostTip}^{commit} 2>/dev/null && echo ^${hostTip})` : '';
  await inContainer(loop, `cd ${WORKDIR} && rm -f ${OUT_BUNDLE} && git bundle create -q ${OUT_BUNDLE} ${quote(ref)} ${basis}`, 'bundling the branch');
  const archive = await container.getArchive({ path: OUT_BUNDLE });
  const chunks: Buffer[] = [];
  for await (const c of archive as AsyncIterable<Buffer>) chunks.push(c);
  const data = firstFileOfTar(Buffer.concat(chunks));
  if (!data) throw new Error('the container sent back no bundle');
  await withTemp(async (dir) => {
    const bundle = join(dir, 'out.bundle');
    await writeFile(bundle, data);
    await git([...HOST_GIT_GUARDS, 'bundle', 'verify', '-q', bundle], { cwd: repo, timeoutMs: GIT_TIMEOUT_MS });
    await git([...HOST_GIT_GUARDS, 'fetch', '-q', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', bundle, `+${ref}:${ref}`], { cwd: repo, timeoutMs: GIT_TIMEOUT_MS });
  });
  const tip = (await git(['rev-parse', '--verify', '-q', ref], { cwd: repo })).stdout.trim();
  const changed = hostTip && tip !== hostTip
    ? (await git(['diff', '--name-only', '-z', '--no-renames', hostTip, tip], { cwd: repo })).stdout.split('\0').filter(Boolean)
    : [];
  return { tip, updated: tip !== hostTip, controlPaths: controlPathsIn(changed) };
}

// The merge queue's scratch checkout made ready to test, like a teammate's worktree
// (docs/file-formats.md, "Merge queue"): the `worktree.copy` globs brought over from the main
// checkout (worktree/copy-in.ts), then the `worktree.setup` commands run there in the queue's
// sandbox box — once per run of the queue, again only when a lockfile changed. With neither
// set, the dependency folder git ignores in the main checkout (`node_modules`, for a
// package.json with a lockfile) is linked in: read-only to the test, which runs in the sandbox
// where the workspace is read-only. What was prepared is kept when the checkout is emptied
// between entries.
import { lstat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Prepared } from '../../shared/schemas/merge-queue';
import { runShell } from '../exec/shell';
import { copyIntoWorktree } from '../worktree/copy-in';
import { git, splitZ, type GitEnvOptions } from '../worktree/git';
import { worktreeSetupFor, type WorktreeSetup } from '../worktree/setup-config';
import { QUEUE_BOX, tail, type TestSandbox } from './queue-test';

/** Lockfiles whose change makes the setup run again. */
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'bun.lock'];

export interface PrepState {
  /** The lockfiles' blob ids when the checkout was prepared. */
  key: string;
  prepared: Prepared;
  /** Paths (relative to the checkout) kept when it is emptied between entries. */
  keep: string[];
}

export interface PrepFailure {
  failed: { reason: string; exit_code: number | null; output: string };
  prepared: Prepared;
}

export interface PrepEnv {
  /** The main checkout's workspace folder. */
  root: string;
  setup: WorktreeSetup | undefined;
  tests: TestSandbox;
  git: GitEnvOptions;
  signal: AbortSignal;
}

const exists = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);

/** The lockfiles of the workspace folder at `commit`, as one string (their blob ids). */
export async function lockKey(top: string, commit: string, subdir: string, ctx: GitEnvOptions): Promise<string> {
  const r = await git(['ls-tree', '-z', commit, '--', ...LOCKFILES.map((f) => `:(top,literal)${subdir ? `${subdir}/` : ''}${f}`)], { ...ctx, cwd: top, allowFail: true });
  return r.stdout;
}

/** Prepares `workdir` (the checkout's workspace folder). */
export async function prepareScratch(env: PrepEnv, workdir: string, key: string): Promise<PrepState | PrepFailure> {
  const cfg = await worktreeSetupFor(env.root, env.setup);
  const keep: string[] = [];
  const done: string[] = [];
  if (cfg.copy.length) {
    const r = await copyIntoWorktree(env.root, workdir, cfg.copy, cfg.timeoutSeconds * 1000, env.signal);
    keep.push(...r.copied);
    done.push(r.copied.length ? `copied ${r.copied.join(', ')}` : `nothing matched ${cfg.copy.join(', ')}`, ...r.problems);
  }
  for (const command of cfg.setup) {
    const plan = await env.tests.launch(QUEUE_BOX, workdir, command, { gitReadOnly: true, box: QUEUE_BOX });
    const r = 'refused' in plan ? null : await runShell(command, { cwd: workdir, timeoutMs: cfg.timeoutSeconds * 1000, maxOutputBytes: 30_000, signal: env.signal, plan });
    const prepared: Prepared = { mode: 'setup', detail: [...done, `\`${command}\` failed`].join('; ') };
    if (!r) return { prepared, failed: { reason: `the setup command \`${command}\` was not run: ${(plan as { refused: string }).refused}`, exit_code: null, output: '' } };
    if (r.exitCode !== 0) return { prepared, failed: { reason: `the setup command \`${command}\` failed (${r.timedOut ? 'timed out' : `exit ${r.exitCode}`})`, exit_code: r.exitCode, output: r.output } };
    done.push(`ran \`${command}\``);
  }
  if (cfg.setup.length) {
    // What the setup made (node_modules, a virtualenv…) is kept between entries.
    const made = splitZ((await git(['ls-files', '-z', '--others', '--directory'], { ...env.git, cwd: workdir, allowFail: true })).stdout);
    keep.push(...made.map((p) => p.replace(/\/$/, '')));
  }
  if (cfg.copy.length || cfg.setup.length) return { key, keep, prepared: { mode: cfg.setup.length ? 'setup' : 'copy', detail: done.join('; ') } };
  const shared = await shareDeps(env.root, workdir, env.git);
  return { key, keep: shared, prepared: shared.length ? { mode: 'shared', detail: `${shared.join(', ')} of the main checkout, linked read-only` } : { mode: 'none', detail: 'a plain checkout' } };
}

/**
 * The main checkout's dependency folders that git ignores, linked into the checkout where it
 * has none: `node_modules` for a package.json with a lockfile.
 */
async function shareDeps(root: string, workdir: string, ctx: GitEnvOptions): Promise<string[]> {
  if (!(await exists(join(workdir, 'package.json')))) return [];
  let lock = false;
  for (const f of LOCKFILES) lock ||= await exists(join(workdir, f));
  if (!lock || !(await exists(join(root, 'node_modules'))) || (await exists(join(workdir, 'node_modules')))) return [];
  const ignored = await git(['check-ignore', '-q', 'node_modules'], { ...ctx, cwd: root, allowFail: true });
  if (ignored.code !== 0) return [];
  await symlink(join(root, 'node_modules'), join(workdir, 'node_modules'), 'dir');
  return ['node_modules'];
}

/** The first lines of `output` that look like errors (else its first lines), capped. */
export function firstErrors(output: string): string {
  const lines = output.split('\n').filter((l) => l.trim());
  const errors = lines.filter((l) => /error|fail|not found|cannot|denied|exception|✖|assert/i.test(l));
  return tail((errors.length ? errors : lines).slice(0, 8).join('\n'));
}

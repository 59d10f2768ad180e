// Runs git asynchronously: never a shell, always a timeout, never a credential prompt, never
// a program a repository's files name (gitEnv), and failures turned into WorktreeErrors that say whether git is missing or merely unhappy.
import { execFile } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { HOST_GIT_CONFIG, HOST_GIT_DROPPED_ENV, HOST_GIT_ENV } from '../sandbox/policy';
import { findGit, type GitPaths } from './git-folders';
import { WorktreeError } from './errors';

export interface GitEnvOptions {
  /** Environment for git (default `process.env`); tests pass a PATH without git. */
  env?: NodeJS.ProcessEnv;
  /** Per-call timeout; a timed-out git is killed (default 120 s: checkouts of big repos are slow). */
  timeoutMs?: number;
}

export interface GitCallOptions extends GitEnvOptions {
  cwd: string;
  /** Return non-zero exits instead of throwing (the caller inspects `code`). */
  allowFail?: boolean;
  /** Extra variables for this call only (e.g. GIT_INDEX_FILE). */
  extraEnv?: Record<string, string>;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

// Large enough for a big diff; beyond it we fail loudly rather than truncate silently.
const MAX_BUFFER = 64 * 1024 * 1024;

/**
 * The environment of every git the product runs (docs/security.md, "The policy table"):
 * nothing a repository's files name is run (HOST_GIT_CONFIG, added after the caller's own
 * GIT_CONFIG_* entries, and HOST_GIT_ENV), nothing inherited points it elsewhere, and, when
 * `dirs` is given, the git folders are named explicitly (a `commondir` written into the git
 * folder is not followed).
 */
export function gitEnv(base: NodeJS.ProcessEnv, extra?: Record<string, string>, dirs?: GitPaths | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of HOST_GIT_DROPPED_ENV) delete env[k];
  Object.assign(env, HOST_GIT_ENV, withGitConfig(env, HOST_GIT_CONFIG));
  if (dirs) Object.assign(env, { GIT_DIR: dirs.admin ?? dirs.common, GIT_COMMON_DIR: dirs.common, GIT_WORK_TREE: dirs.top });
  return { ...env, ...extra };
}

/** `GIT_CONFIG_*` entries for `pairs`, numbered after those already in `env`. */
export function withGitConfig(env: NodeJS.ProcessEnv, pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const n = Number(env.GIT_CONFIG_COUNT) || 0;
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(n + pairs.length) };
  pairs.forEach(([k, v], i) => { out[`GIT_CONFIG_KEY_${n + i}`] = k; out[`GIT_CONFIG_VALUE_${n + i}`] = v; });
  return out;
}

export async function git(args: readonly string[], opts: GitCallOptions): Promise<GitResult> {
  const timeout = opts.timeoutMs ?? 120_000;
  const dirs = await findGit(await realpath(opts.cwd).catch(() => resolve(opts.cwd)));
  return new Promise((resolve, reject) => {
    execFile(
      'git', args as string[],
      {
        cwd: opts.cwd, env: gitEnv(opts.env ?? process.env, opts.extraEnv, dirs),
        timeout, maxBuffer: MAX_BUFFER, windowsHide: true, encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: unknown; killed?: boolean; signal?: string };
        if (e.code === 'ENOENT') return void notFound(opts.cwd, err).then(reject);
        if (e.killed || e.signal) {
          return reject(new WorktreeError('timeout', `git ${args[0]} did not finish within ${timeout} ms and was stopped`, [], { cause: err }));
        }
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          return reject(new WorktreeError('git-failed', `git ${args[0]} produced more than ${MAX_BUFFER} bytes of output`, [], { cause: err }));
        }
        const code = typeof e.code === 'number' ? e.code : 1;
        if (opts.allowFail) return resolve({ code, stdout, stderr });
        reject(new WorktreeError('git-failed', `git ${args.join(' ')} failed: ${firstLines(stderr || stdout)}`, [], { cause: err }));
      },
    );
  });
}

// spawn reports a missing cwd and a missing executable alike (ENOENT); tell them apart.
async function notFound(cwd: string, cause: unknown): Promise<WorktreeError> {
  const cwdExists = await stat(cwd).then(() => true, () => false);
  return cwdExists
    ? new WorktreeError('git-missing', 'git was not found on PATH: install git to use worktree isolation', [], { cause })
    : new WorktreeError('git-failed', `cannot run git in ${cwd}: the directory does not exist`, [], { cause });
}

/** The gist of git's complaint, without its hints. */
export function firstLines(text: string, n = 3): string {
  return text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('hint:')).slice(0, n).join(' / ');
}

/**
 * `-c user.name/-c user.email` fallbacks for commands that create commits, only when the
 * repository has no identity configured: a fresh CI box or container must still be able to
 * merge, but a configured identity is never overridden.
 */
export async function identityArgs(cwd: string, env: GitEnvOptions, run: typeof git = git): Promise<string[]> {
  const [name, email] = await Promise.all([
    run(['config', '--get', 'user.name'], { ...env, cwd, allowFail: true }),
    run(['config', '--get', 'user.email'], { ...env, cwd, allowFail: true }),
  ]);
  const args: string[] = [];
  if (!name.stdout.trim()) args.push('-c', 'user.name=Agent Teams');
  if (!email.stdout.trim()) args.push('-c', 'user.email=agent-teams@localhost');
  return args;
}

/** NUL-separated git output (`-z`) as a list, without the trailing empty entry. */
export function splitZ(out: string): string[] {
  const parts = out.split('\0');
  if (parts.length && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

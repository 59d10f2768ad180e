// Drives the CLI as a child process, the way a user or a script does: one-shot runs with
// exit code and output, and an interactive session read pexpect-style (each expectation
// consumes the output up to its match, so the next one only sees what came after).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after } from 'node:test';
import { build } from 'esbuild';
import { startFakeApi, type FakeApi } from '../fake-api';

const repo = join(__dirname, '..', '..', '..');
const buildDir = join(repo, 'test', '.tmp', `cli-${process.pid}`);
let built: Promise<string> | null = null;
// Registered at load, so it runs once after every test of the file that imports this.
after(() => rm(buildDir, { recursive: true, force: true }));

/**
 * The CLI bundled from src/ for this test process, under test/.tmp/ (so --version still
 * finds package.json above it). Not out/src/cli/main.js: a concurrent `npm test` rebuilds
 * out/ from scratch and would pull files from under a running session; not dist/, which
 * may be stale.
 */
export function cliPath(): Promise<string> {
  built ??= (async () => {
    await mkdir(buildDir, { recursive: true });
    const outfile = join(buildDir, 'cli.js');
    await build({
      entryPoints: [join(repo, 'src', 'cli', 'main.ts')], outfile, bundle: true, platform: 'node', format: 'cjs',
      target: 'node20', logLevel: 'warning', alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' }, external: ['*.node'],
    });
    // grep / glob / list_dir and the shell parser load their workers from next to the bundle (as dist/ has it).
    for (const w of [['exec', 'search', 'search-worker'], ['permissions', 'shell-worker']]) {
      await build({
        entryPoints: [join(repo, 'src', 'core', ...w) + '.ts'], outfile: join(buildDir, `${w.at(-1)}.js`),
        bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning',
      });
    }
    return outfile;
  })();
  return built;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time from spawn to exit. */
  ms: number;
  /** performance.now() at exit. */
  exitAt: number;
}

/**
 * The environment without the developer's own key or endpoint leaking into a test, and with
 * a config folder of this test process's own (the CLI records trusted folders there).
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('ANTHROPIC_')) delete env[k];
  return { ...env, XDG_CONFIG_HOME: join(buildDir, 'config'), ...extra };
}

export async function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  const cli = await cliPath();
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd: opts.cwd, env: opts.env ?? cleanEnv(), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(opts.input ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const exitAt = performance.now();
      resolve({ code, stdout, stderr, ms: exitAt - started, exitAt });
    });
  });
}

/**
 * Waits for `re` in `out()` after `from` (until `timeoutMs` or `ended()`); the match and the
 * position just past it. `what()` describes the output for the error.
 */
export async function expectAfter(out: () => string, from: number, re: RegExp, timeoutMs: number, ended: () => boolean, what: () => string): Promise<{ match: RegExpExecArray; pos: number }> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const m = re.exec(out().slice(from));
    if (m) return { match: m, pos: from + m.index + m[0].length };
    if (Date.now() > end || ended()) throw new Error(`expected ${re} in ${what()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export class ReplProcess {
  readonly child: ChildProcessWithoutNullStreams;
  out = '';
  err = '';
  private pos = 0;
  readonly exited: Promise<number | null>;

  private constructor(cli: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [cli, ...args], { env, stdio: 'pipe' });
    this.child.stdout.on('data', (d) => (this.out += d));
    this.child.stderr.on('data', (d) => (this.err += d));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  /** A session over `root` talking to the fake API at `apiUrl`. */
  static async start(root: string, apiUrl: string, args: string[] = []): Promise<ReplProcess> {
    return new ReplProcess(await cliPath(), ['--root', root, '--idle-timeout', '0', ...args], cleanEnv({ ANTHROPIC_API_KEY: 'sk-test-cli', ANTHROPIC_BASE_URL: apiUrl }));
  }

  /** The first prompt: generous, since a loaded machine starts node slowly. */
  ready(): Promise<RegExpExecArray> {
    return this.expect(/agent-teams >> /, 30_000);
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Waits for `re` in the output not yet consumed; consumes through the match. */
  async expect(re: RegExp, timeoutMs = 8000): Promise<RegExpExecArray> {
    const { match, pos } = await expectAfter(() => this.out, this.pos, re, timeoutMs, () => this.child.exitCode !== null, () => `session output; unconsumed:\n${this.out.slice(this.pos)}\n--- stderr:\n${this.err}`);
    this.pos = pos;
    return match;
  }

  /** Everything printed so far, standard output then standard error. */
  output(): string {
    return `${this.out}\n${this.err}`;
  }

  /** Whether `re` appears anywhere in the output so far (consumed or not). */
  saw(re: RegExp): boolean {
    return re.test(this.out);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

/** A fake Messages API closed when the test ends. */
export async function fakeApi(t: { after(fn: () => Promise<void>): void }): Promise<FakeApi> {
  const api = await startFakeApi();
  t.after(() => api.close());
  return api;
}

/** A session with bash allowed (unless `args` say otherwise), killed if the test fails. */
export async function session(t: { after(fn: () => void): void }, root: string, api: FakeApi, args: string[] = ['--bash', 'allow']): Promise<ReplProcess> {
  const repl = await ReplProcess.start(root, api.url, args);
  t.after(() => repl.kill());
  return repl;
}

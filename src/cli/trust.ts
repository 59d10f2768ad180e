// Folder trust for the CLI (docs/security.md, "Folder trust"): the control files a cloned
// repository, a pull or a landed branch brings (`.team/settings.json`, `.mcp.json`, the
// `.claude/settings*.json` hooks: core/trust/control-files.ts) are used only in a folder the
// user trusted with that content. Each file's fingerprint is kept in the user's config folder,
// never in the workspace; a file that changed since is asked about again, naming what changed.
// `--trust` answers yes for this run only and records nothing; `--trust=remember` records.
// Without a terminal to ask, an untrusted file is ignored with a notice naming it.
import { realpath, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { changeLines, controlFilesOf, fingerprints, hooksUsable, readControlFiles, setTeamSettingsTrusted, untrustedChanges, writeJsonAtomic, type ControlFileChange } from '../core/session';
import { TrustFile } from '../shared/trust-schemas';
import type { OptionValues } from './args';
import { writeLine, type CliIo } from './io';

export const CLI_CONTROL_FILES = controlFilesOf('cli');
export type TrustedFileName = '.team/settings.json' | '.mcp.json' | '.claude/settings.json' | '.claude/settings.local.json';

/** Which of the files may be used (true also when the file does not exist: nothing to trust). */
export type FolderTrust = Record<TrustedFileName, boolean>;

export const ALL_TRUSTED: FolderTrust = { '.team/settings.json': true, '.mcp.json': true, '.claude/settings.json': true, '.claude/settings.local.json': true };

/** Hooks come from three of the files (docs/hooks.md): they run only when all three are trusted. */
export const hooksTrusted = (t: FolderTrust): boolean => hooksUsable((f) => t[f as TrustedFileName] === false);

/** `--trust`: `once` (this run, nothing recorded), `remember` (`--trust=remember`), or not given. */
export type TrustFlag = false | 'once' | 'remember';

export function trustFlag(values: OptionValues): TrustFlag {
  return values.trust === 'remember' ? 'remember' : values.trust === true ? 'once' : false;
}

/**
 * `--trust=remember` as parseArgs sees it: `--trust` (a boolean option), and whether it was
 * `=remember`. Any other `--trust=<word>` is left for parseArgs to refuse.
 */
export function splitTrustArg(argv: string[]): { argv: string[]; remember: boolean } {
  const end = argv.indexOf('--');
  const opts = end < 0 ? argv : argv.slice(0, end);
  const remember = opts.includes('--trust=remember');
  return { argv: [...opts.map((a) => (a === '--trust=remember' ? '--trust' : a)), ...(end < 0 ? [] : argv.slice(end))], remember };
}

/** `$XDG_CONFIG_HOME/agent-teams/trusted.json` (`~/.config/…`; `%APPDATA%\agent-teams\…` on Windows). */
export function trustStorePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'agent-teams', 'trusted.json');
}

async function readStore(file: string, io: CliIo): Promise<TrustFile> {
  const empty: TrustFile = { version: 2, folders: {} };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return empty;
  }
  try {
    return TrustFile.parse(JSON.parse(text));
  } catch {
    // Unreadable trust is no trust: the folder is asked about again, and the file rewritten.
    writeLine(io.stderr, `agent-teams: warning: ${file} is not a valid trust record; folders will be asked about again`);
    return empty;
  }
}

/** The question: every untrusted file, what it decides and, if it changed, what changed. */
function question(folder: string, pending: ControlFileChange[]): string {
  const lines = pending.flatMap((c) => changeLines(c));
  return `This folder has files that decide what agents may do:\n${lines.join('\n')}\n`
    + `Trust ${folder} and use them? [y]es, remember / [o]nce, this run only / [N]o: `;
}

/**
 * Whether each control file of `root` may be used: trusted before with the same content, or
 * trusted now (`--trust`, or the user's answer in a terminal). Untrusted files are named on
 * stderr with what changed.
 */
export async function folderTrust(io: CliIo, root: string, opts: { trust: TrustFlag; ask?: (question: string) => Promise<string> }): Promise<FolderTrust> {
  const result = await decide(io, root, opts);
  // Every reader of .team/settings.json (merge test command, worktree setup too) obeys the answer.
  for (const r of [root, await realpath(root)]) setTeamSettingsTrusted(r, result['.team/settings.json']);
  return result;
}

async function decide(io: CliIo, root: string, opts: { trust: TrustFlag; ask?: (question: string) => Promise<string> }): Promise<FolderTrust> {
  const folder = await realpath(root);
  const present = await readControlFiles(folder, CLI_CONTROL_FILES);
  const result: FolderTrust = { ...ALL_TRUSTED };
  if (!present.size) return result;
  const storePath = trustStorePath(io.env);
  const store = await readStore(storePath, io);
  const known = store.folders[folder]?.files ?? {};
  const pending = untrustedChanges(present, known);
  if (!pending.length) return result;
  let answer: TrustFlag = opts.trust;
  if (!answer && io.isTTY) {
    const said = (await (opts.ask ?? ((q) => askLine(io, q)))(question(folder, pending))).trim();
    answer = /^y(es)?$/i.test(said) ? 'remember' : /^o(nce)?$/i.test(said) ? 'once' : false;
  }
  if (answer === 'remember') {
    store.folders[folder] = { files: { ...known, ...fingerprints(present) }, at: new Date().toISOString() };
    await writeJsonAtomic(storePath, store).catch((e: Error) => writeLine(io.stderr, `agent-teams: warning: could not record the trust in ${storePath}: ${e.message}`));
  }
  if (answer) return result;
  for (const c of pending) {
    result[c.path as TrustedFileName] = false;
    const why = c.kind === 'changed' ? `it changed since you trusted this folder (${c.summary.join('; ')})` : 'this folder is not trusted';
    writeLine(io.stderr, `agent-teams: ${c.path} is ignored: ${why}; ${io.isTTY ? 'you did not trust it' : 'nobody can be asked'} (--trust uses it for one run, --trust=remember records it)`);
  }
  return result;
}

/** One line read from the terminal; '' when the input ends first. */
function askLine(io: CliIo, q: string): Promise<string> {
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: io.isTTY });
  return new Promise((resolve) => {
    // Resolve before close: close() emits 'close' at once, and its '' must not win the answer.
    rl.question(q, (a) => {
      resolve(a);
      rl.close();
    });
    rl.once('close', () => resolve(''));
  });
}

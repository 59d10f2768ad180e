// Folder trust for the CLI (docs/security.md, "Permission rules, trust and MCP consent"):
// `.team/settings.json` (rules, sandbox, hooks) and `.mcp.json` (programs to start) come with a
// cloned repository, so the CLI uses them only in a folder the user trusted. It asks once per
// folder, and again when either file changed since (their SHA-256 is kept in the user's config
// folder, never in the workspace); `--trust` answers yes for scripts; without a terminal to ask,
// an untrusted file is ignored with a notice naming it. VS Code has Workspace Trust for this.
import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { writeJsonAtomic } from '../core/session';
import { TrustFile } from '../shared/trust-schemas';
import { writeLine, type CliIo } from './io';

/** The workspace files trust covers, and what each decides. */
export const TRUSTED_FILES = {
  '.team/settings.json': 'permission rules, sandbox and hooks',
  '.mcp.json': 'MCP servers: programs started with your rights',
  '.claude/settings.json': 'hooks: commands run with your rights (docs/hooks.md)',
  '.claude/settings.local.json': 'hooks: commands run with your rights (docs/hooks.md)',
} as const;
export type TrustedFileName = keyof typeof TRUSTED_FILES;

/** Which of the files may be used (true also when the file does not exist: nothing to trust). */
export type FolderTrust = Record<TrustedFileName, boolean>;

export const ALL_TRUSTED: FolderTrust = { '.team/settings.json': true, '.mcp.json': true, '.claude/settings.json': true, '.claude/settings.local.json': true };

/** Hooks come from three of the files (docs/hooks.md): they run only when all three are trusted. */
export const hooksTrusted = (t: FolderTrust): boolean => t['.team/settings.json'] && t['.claude/settings.json'] && t['.claude/settings.local.json'];

/** `$XDG_CONFIG_HOME/agent-teams/trusted.json` (`~/.config/…`; `%APPDATA%\agent-teams\…` on Windows). */
export function trustStorePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'agent-teams', 'trusted.json');
}

async function readStore(file: string, io: CliIo): Promise<TrustFile> {
  const empty: TrustFile = { version: 1, folders: {} };
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

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Whether each trusted file of `root` may be used: trusted before with the same content, or
 * trusted now (`--trust`, or the user's yes in a terminal). Untrusted files are named on stderr.
 */
export async function folderTrust(io: CliIo, root: string, opts: { trust: boolean; ask?: (question: string) => Promise<string> }): Promise<FolderTrust> {
  const folder = await realpath(root);
  const present = new Map<TrustedFileName, string>();
  for (const name of Object.keys(TRUSTED_FILES) as TrustedFileName[]) {
    const content = await readFile(join(folder, name)).catch(() => undefined);
    if (content) present.set(name, sha256(content));
  }
  const result: FolderTrust = { ...ALL_TRUSTED };
  if (!present.size) return result;
  const storePath = trustStorePath(io.env);
  const store = await readStore(storePath, io);
  const known = store.folders[folder]?.files ?? {};
  const pending = [...present].filter(([name, hash]) => known[name] !== hash).map(([name]) => name);
  if (!pending.length) return result;
  let yes = opts.trust;
  if (!yes && io.isTTY) {
    const lines = pending.map((n) => `  ${n} (${TRUSTED_FILES[n]})${known[n] ? ': changed since you trusted it' : ''}`);
    const answer = await (opts.ask ?? ((q) => askLine(io, q)))(`This folder has files that decide what agents may do:\n${lines.join('\n')}\nTrust ${folder} and use them? [y]es / [N]o: `);
    yes = /^y(es)?$/i.test(answer.trim());
  }
  if (yes) {
    store.folders[folder] = { files: { ...known, ...Object.fromEntries(present) }, at: new Date().toISOString() };
    await writeJsonAtomic(storePath, store).catch((e: Error) => writeLine(io.stderr, `agent-teams: warning: could not record the trust in ${storePath}: ${e.message}`));
    return result;
  }
  for (const name of pending) {
    result[name] = false;
    writeLine(io.stderr, `agent-teams: ${name} is ignored: ${io.isTTY ? 'you did not trust' : 'nobody can be asked to trust'} this folder${known[name] ? ' since it changed' : ''} (run with --trust to use it)`);
  }
  return result;
}

function askLine(io: CliIo, question: string): Promise<string> {
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: io.isTTY });
  return new Promise((resolve) => {
    rl.question(question, (a) => (rl.close(), resolve(a)));
    rl.once('close', () => resolve(''));
  });
}

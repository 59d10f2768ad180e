// The files whose content folder trust decides on (docs/security.md, "Folder trust"): what a
// cloned repository, a pull or a landed branch can bring that makes the host run something
// or loosen a rule. One table for both hosts; each host keeps its own record of what the
// user trusted (the CLI in its config folder, VS Code in globalState) and asks about what
// differs from it through `untrustedChanges`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileFingerprint } from '../../shared/trust-schemas';
import { HOOK_FILES } from '../hooks/config';
import { changeSummary, fingerprintOf, type ReadContent } from './fingerprint';

export interface ControlFile {
  /** Relative to the workspace folder. */
  path: string;
  /** What it decides, as the question shows it. */
  decides: string;
  /** Only top-level keys with this prefix count (the rest of the file is not ours). */
  keyPrefix?: string;
  /** Which hosts read it (VS Code reads its workspace settings itself, the CLI never). */
  hosts: ReadonlyArray<'cli' | 'vscode'>;
}

/**
 * Not here: agent definitions (`.team/agents/*.md`, `.claude/agents/*.md`). They pick a
 * prompt and a tool list, and every call they make is still judged by the rules and the
 * sandbox; they cannot start a program or loosen a rule.
 */
export const CONTROL_FILES: readonly ControlFile[] = [
  { path: '.team/settings.json', decides: 'permission rules, sandbox, hooks, merge test command, worktree setup commands', hosts: ['cli', 'vscode'] },
  { path: '.mcp.json', decides: 'MCP servers: programs started with your rights', hosts: ['cli', 'vscode'] },
  { path: '.claude/settings.json', decides: 'hooks: commands run with your rights', hosts: ['cli', 'vscode'] },
  { path: '.claude/settings.local.json', decides: 'hooks: commands run with your rights', hosts: ['cli', 'vscode'] },
  { path: '.vscode/settings.json', decides: 'agentTeams.* workspace settings: rules, sandbox, merge and worktree commands', keyPrefix: 'agentTeams.', hosts: ['vscode'] },
];

/** Hooks come from three of the files (docs/hooks.md): they run only when none is left untrusted. */
export const hooksUsable = (untrusted: (path: string) => boolean): boolean => !HOOK_FILES.some(untrusted);

export const controlFilesOf = (host: 'cli' | 'vscode') => CONTROL_FILES.filter((f) => f.hosts.includes(host));

/** The control files present under `root` (a file without content that counts is absent). */
export async function readControlFiles(root: string, files: readonly ControlFile[]): Promise<Map<string, ReadContent>> {
  const out = new Map<string, ReadContent>();
  for (const f of files) {
    const text = await readFile(join(root, f.path), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const read = fingerprintOf(text, f.keyPrefix);
    if (read) out.set(f.path, read);
  }
  return out;
}

export interface ControlFileChange {
  path: string;
  decides: string;
  /** `new`: never trusted here; `changed`: trusted with other content. */
  kind: 'new' | 'changed';
  /** What differs from what was trusted (fingerprint.ts), one line each. */
  summary: string[];
}

/** The files of `present` whose content is not the one trusted (`trusted`: path → fingerprint). */
export function untrustedChanges(present: ReadonlyMap<string, ReadContent>, trusted: Readonly<Record<string, FileFingerprint>>): ControlFileChange[] {
  const out: ControlFileChange[] = [];
  for (const f of CONTROL_FILES) {
    const now = present.get(f.path);
    if (!now) continue;
    const before = trusted[f.path];
    if (before?.sha256 === now.fingerprint.sha256) continue;
    out.push({ path: f.path, decides: f.decides, kind: before ? 'changed' : 'new', summary: changeSummary(before, now) });
  }
  return out;
}

/** The fingerprints to record once `present` is trusted. */
export function fingerprints(present: ReadonlyMap<string, ReadContent>): Record<string, FileFingerprint> {
  return Object.fromEntries([...present].map(([p, r]) => [p, r.fingerprint]));
}

/** One file's line for a question or a notice: `.mcp.json (MCP servers…): changed since you trusted it`. */
export function changeLines(c: ControlFileChange, indent = '  '): string[] {
  const head = `${indent}${c.path} (${c.decides})${c.kind === 'changed' ? ': changed since you trusted it' : ''}`;
  return c.kind === 'changed' ? [head, ...c.summary.map((s) => `${indent}    ${s}`)] : [head];
}

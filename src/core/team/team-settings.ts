// The one reader of `.team/settings.json` (docs/file-formats.md, "Team settings"): permission
// rules and sandbox (CLI), merge queue, worktree setup, hooks — each feature asks this reader
// for its section instead of parsing the file itself. Each section is checked against its
// schema (shared/schemas/team-settings.ts) on its own: a malformed one is left out with the
// field named, and the others still count. Permission rules are kept one by one (a bad entry
// never costs the good deny rules beside it). Reads each time it is asked, so an edit counts
// from the next use; never throws.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { TEAM_SETTINGS_SECTIONS, type TeamSettingsFile, type TeamSettingsSection } from '../../shared/schemas/team-settings';

export const TEAM_SETTINGS_PATH = '.team/settings.json';

export interface TeamSettings {
  /** The file's text as read; null: no file (hooks read it again for line numbers). */
  text: string | null;
  /** The sections that passed their schema (permissions: the entries that did). */
  sections: Omit<TeamSettingsFile, '$schema'>;
  /** Why no section was used: unreadable, not JSON, not an object. */
  fileProblem?: string;
  /** Per section, what was left out and why, naming the field. */
  problems: Partial<Record<TeamSettingsSection, string>>;
  /** Top-level keys no feature reads (a typo: "sandobx"). */
  unknownKeys: string[];
}

const EMPTY = (): TeamSettings => ({ text: null, sections: {}, problems: {}, unknownKeys: [] });

const issues = (e: z.ZodError) => e.issues.map((i) => `${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.').replace(/\.\[/g, '[') || 'value'}: ${i.message}`).join('; ');

/** Permission rules entry by entry: strings kept, anything else reported by position. */
function permissions(raw: unknown, t: TeamSettings): void {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    t.problems.permissions = '"permissions" ignored: it must be an object with allow / ask / deny arrays';
    return;
  }
  const out: Record<string, string[]> = {};
  const bad: string[] = [];
  for (const [kind, list] of Object.entries(raw)) {
    if (kind !== 'allow' && kind !== 'ask' && kind !== 'deny') {
      bad.push(`permissions.${kind} is not known (allow, ask, deny)`);
      continue;
    }
    if (!Array.isArray(list)) {
      bad.push(`permissions.${kind} must be an array of rules`);
      continue;
    }
    out[kind] = list.filter((r, i) => typeof r === 'string' || (bad.push(`permissions.${kind}[${i}] is not a rule (a string)`), false));
  }
  t.sections.permissions = out;
  if (bad.length) t.problems.permissions = `ignored: ${bad.join('; ')}`;
}

/** The sections of `text` (the file's content; null: no file). Pure. */
export function parseTeamSettings(text: string | null): TeamSettings {
  const t = EMPTY();
  if (text === null) return t;
  t.text = text;
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    t.fileProblem = `is not valid JSON (${(e as Error).message})`;
    return t;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    t.fileProblem = 'is not a JSON object';
    return t;
  }
  for (const [key, raw] of Object.entries(json)) {
    if (key === '$schema') continue;
    if (!(key in TEAM_SETTINGS_SECTIONS)) {
      t.unknownKeys.push(key);
      continue;
    }
    const section = key as TeamSettingsSection;
    if (section === 'permissions') {
      permissions(raw, t);
      continue;
    }
    const r = TEAM_SETTINGS_SECTIONS[section].safeParse(raw);
    if (r.success) (t.sections as Record<string, unknown>)[section] = r.data;
    else t.problems[section] = `"${section}" ignored: ${issues(r.error)}`;
  }
  return t;
}

/**
 * Folders whose file the host did not trust (docs/security.md, "Folder trust"): read as if
 * there were no file, by every feature at once — the merge queue's test command and the
 * worktree setup commands included, not only the rules. One gate here rather than a flag
 * threaded through each reader.
 */
const untrusted = new Set<string>();

/** The host's trust answer for `root`'s file (default: trusted). */
export function setTeamSettingsTrusted(root: string, trusted: boolean): void {
  if (trusted) untrusted.delete(resolve(root));
  else untrusted.add(resolve(root));
}

/** `.team/settings.json` of the workspace `root` (none, if the host did not trust it). */
export async function readTeamSettings(root: string): Promise<TeamSettings> {
  if (untrusted.has(resolve(root))) return EMPTY();
  let text: string;
  try {
    text = await readFile(join(root, TEAM_SETTINGS_PATH), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return EMPTY();
    return { ...EMPTY(), fileProblem: `cannot be read (${(e as Error).message})` };
  }
  return parseTeamSettings(text);
}

/**
 * What a feature should say about its section, if anything: the file's problem (then the
 * section is ignored with it) or the section's own. Without the file's name; callers add it.
 */
export function sectionProblem(t: TeamSettings, section: TeamSettingsSection): string | undefined {
  if (t.fileProblem) return `${t.fileProblem}; its "${section}" section is ignored`;
  return t.problems[section];
}

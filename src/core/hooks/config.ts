// Where hooks come from (docs/hooks.md): the `hooks` section of `.claude/settings.json`,
// `.claude/settings.local.json` and `.team/settings.json`, in Claude Code's shape
// `{"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": s}]}]}}`.
// Each entry is checked on its own: a malformed one is reported with its file and position
// and left out, and the others still run. Reads only; the hosts decide whether the folder is
// trusted enough to run what is found.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
// Bundles take its ESM build (esbuild.mjs `alias`): the UMD main loads its parts by a require() esbuild cannot follow.
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type JSONPath, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { readTeamSettings, TEAM_SETTINGS_PATH } from '../team/team-settings';

export const HOOK_EVENTS = [
  'PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'TeammateIdle',
  'TaskCreated', 'TaskCompleted', 'Notification', 'SessionStart',
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The files hooks are read from, relative to the team folder, in the order they run. */
export const HOOK_FILES = ['.claude/settings.json', '.claude/settings.local.json', '.team/settings.json'] as const;

export const DEFAULT_HOOK_TIMEOUT_S = 60;

const commandHook = z.object({
  type: z.literal('command'),
  command: z.string().trim().min(1, 'command must not be empty'),
  timeout: z.number().positive().max(86_400).optional(),
});

const matcherGroup = z.object({
  matcher: z.string().optional(),
  hooks: z.array(z.unknown()),
});

export interface HookSpec {
  event: HookEvent;
  /** Empty: every call (or the event has no matcher). */
  matcher: string;
  command: string;
  timeoutSec: number;
  /** The settings file it came from, relative to the team folder. */
  source: string;
  /** Where in that file: `hooks.PreToolUse[0].hooks[1]`. */
  at: string;
}

export interface HookProblem {
  /** The file and, where known, `:line:column`. */
  path: string;
  message: string;
}

export interface HookConfig {
  hooks: HookSpec[];
  problems: HookProblem[];
}

/** 1-based line and column of character `pos` in `text`. */
function lineCol(text: string, pos: number): string {
  const before = text.slice(0, Math.max(0, Math.min(pos, text.length)));
  const line = before.split('\n').length;
  return `${line}:${pos - before.lastIndexOf('\n')}`;
}

/** A matcher compiles as a regular expression (a plain name is one too). */
function badMatcher(m: string): string | null {
  try {
    new RegExp(m);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const issues = (e: z.ZodError, what: string) => e.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`).join('; ');

/** The hooks of one settings file's text; `file` as the user should see it. */
export function parseHookSettings(text: string, file: string): HookConfig {
  const out: HookConfig = { hooks: [], problems: [] };
  // Strict JSON, as Claude Code reads these files; the parser gives every node's offset.
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length || !tree) {
    const e = errors[0];
    out.problems.push({ path: e ? `${file}:${lineCol(text, e.offset)}` : file, message: `not valid JSON (${e ? printParseErrorCode(e.error) : 'empty'}), its hooks are ignored` });
    return out;
  }
  const where = (path: JSONPath) => {
    const node = findNodeAtLocation(tree, path);
    return node ? `${file}:${lineCol(text, node.offset)}` : file;
  };
  const section = (getNodeValue(tree) as { hooks?: unknown } | null)?.hooks;
  if (section === undefined) return out;
  if (!section || typeof section !== 'object' || Array.isArray(section)) {
    out.problems.push({ path: where(['hooks']), message: '"hooks" must be an object of event names; ignored' });
    return out;
  }
  for (const [event, groups] of Object.entries(section)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      out.problems.push({ path: where(['hooks', event]), message: `unknown hook event "${event}" (known: ${HOOK_EVENTS.join(', ')}); ignored` });
      continue;
    }
    if (!Array.isArray(groups)) {
      out.problems.push({ path: where(['hooks', event]), message: `hooks.${event} must be an array of {"matcher", "hooks"}; ignored` });
      continue;
    }
    groups.forEach((g, gi) => {
      const at = `hooks.${event}[${gi}]`;
      const group = matcherGroup.safeParse(g);
      if (!group.success) {
        out.problems.push({ path: where(['hooks', event, gi]), message: `${at}: ${issues(group.error, 'entry')}; ignored` });
        return;
      }
      const matcher = group.data.matcher?.trim() ?? '';
      const bad = matcher && matcher !== '*' ? badMatcher(matcher) : null;
      if (bad) {
        out.problems.push({ path: where(['hooks', event, gi, 'matcher']), message: `${at}.matcher ${JSON.stringify(matcher)} is not a valid regular expression (${bad}); ignored` });
        return;
      }
      group.data.hooks.forEach((h, hi) => {
        const r = commandHook.safeParse(h);
        if (!r.success) {
          const type = (h as { type?: unknown } | null)?.type;
          const why = typeof type === 'string' && type !== 'command' ? `hook type "${type}" is not supported (only "command")` : issues(r.error, 'hook');
          out.problems.push({ path: where(['hooks', event, gi, 'hooks', hi]), message: `${at}.hooks[${hi}]: ${why}; ignored` });
          return;
        }
        out.hooks.push({
          event: event as HookEvent, matcher: matcher === '*' ? '' : matcher, command: r.data.command,
          timeoutSec: r.data.timeout ?? DEFAULT_HOOK_TIMEOUT_S, source: file, at: `${at}.hooks[${hi}]`,
        });
      });
    });
  }
  return out;
}

/** Every hook of the team folder `root`, files in HOOK_FILES order; absent files add nothing. */
export async function loadHookConfig(root: string): Promise<HookConfig> {
  const out: HookConfig = { hooks: [], problems: [] };
  for (const rel of HOOK_FILES) {
    let text: string;
    if (rel === TEAM_SETTINGS_PATH) {
      // The team's file has one reader; its hooks section is checked here, entry by entry, with positions.
      const team = await readTeamSettings(root);
      if (team.text === null) {
        if (team.fileProblem) out.problems.push({ path: rel, message: `${team.fileProblem}; its hooks are ignored` });
        continue;
      }
      text = team.text;
    } else {
      try {
        text = await readFile(join(root, rel), 'utf8');
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') out.problems.push({ path: rel, message: `cannot be read, its hooks are ignored: ${(e as Error).message}` });
        continue;
      }
    }
    const one = parseHookSettings(text.replace(/^\uFEFF/, ''), rel);
    out.hooks.push(...one.hooks);
    out.problems.push(...one.problems);
  }
  return out;
}

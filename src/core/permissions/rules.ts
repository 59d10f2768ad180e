// Permission rules in Claude Code's syntax (`Bash(npm test:*)`, `Edit(src/**)`,
// `Read(.env)`, `mcp__server__tool`), parsed once from settings or CLI flags. A rule
// that does not parse is reported and dropped — never read as "allow". See
// docs/permissions.md for the syntax.
import { globMatcher } from './path-glob';

export type RuleKind = 'allow' | 'ask' | 'deny';
export const RULE_KINDS: readonly RuleKind[] = ['deny', 'ask', 'allow'];

export type Rule =
  | { tool: 'Bash'; text: string; match: { kind: 'any' } | { kind: 'exact'; words: string[] } | { kind: 'prefix'; words: string[] } | { kind: 'wildcard'; parts: string[] } }
  | { tool: 'Edit' | 'Write' | 'Read'; text: string; path: ((rel: string, abs: string) => boolean) | null }
  | { tool: 'mcp'; text: string; server: string; name: string | null };

export interface RuleSet {
  allow: Rule[];
  ask: Rule[];
  deny: Rule[];
}

export interface RuleSource {
  allow?: unknown;
  ask?: unknown;
  deny?: unknown;
}

export interface RuleProblem {
  kind: RuleKind;
  rule: string;
  message: string;
}

export const EMPTY_RULES: RuleSet = { allow: [], ask: [], deny: [] };

/** Parses every list; malformed entries come back as problems for the host to report once. */
export function parseRuleSet(...sources: RuleSource[]): { rules: RuleSet; problems: RuleProblem[] } {
  const rules: RuleSet = { allow: [], ask: [], deny: [] };
  const problems: RuleProblem[] = [];
  for (const src of sources) {
    for (const kind of RULE_KINDS) {
      const v = src[kind];
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v)) {
        problems.push({ kind, rule: JSON.stringify(v) ?? String(v), message: 'must be an array of rule strings' });
        continue;
      }
      for (const entry of v) {
        const r = typeof entry === 'string' ? parseRule(entry) : { error: 'a rule must be a string' };
        if ('error' in r) problems.push({ kind, rule: typeof entry === 'string' ? entry : JSON.stringify(entry), message: r.error });
        else rules[kind].push(r);
      }
    }
  }
  return { rules, problems };
}

const MCP_NAME = /^mcp__([A-Za-z0-9_-]+?)(?:__([A-Za-z0-9_*-]+))?$/;

export function parseRule(raw: string): Rule | { error: string } {
  const text = raw.trim();
  const m = /^([A-Za-z][A-Za-z0-9_-]*\*?)(?:\((.*)\))?$/s.exec(text);
  if (!m) return { error: 'expected Tool or Tool(specifier), e.g. Bash(npm test:*)' };
  const [, tool, spec] = m;
  if (tool.startsWith('mcp__')) {
    if (spec !== undefined) return { error: 'MCP rules take no parentheses: mcp__server or mcp__server__tool' };
    const mm = MCP_NAME.exec(tool);
    if (!mm) return { error: 'expected mcp__<server> or mcp__<server>__<tool>' };
    return { tool: 'mcp', text, server: mm[1], name: mm[2] && mm[2] !== '*' ? mm[2] : null };
  }
  if (tool === 'Bash') return bashRule(text, spec);
  if (tool === 'Edit' || tool === 'Write' || tool === 'Read') {
    if (spec === undefined || spec.trim() === '' || spec.trim() === '*' || spec.trim() === '**') return { tool, text, path: null };
    return { tool, text, path: pathMatcher(spec.trim()) };
  }
  return { error: `unknown tool "${tool}" (rules cover Bash, Edit, Write, Read and mcp__… tools)` };
}

function bashRule(text: string, spec: string | undefined): Rule | { error: string } {
  const s = spec?.trim();
  if (s === undefined || s === '' || s === '*') return { tool: 'Bash', text, match: { kind: 'any' } };
  if (s.endsWith(':*')) {
    const words = splitWords(s.slice(0, -2));
    if (!words.length) return { error: 'a prefix rule needs a command before ":*"' };
    return { tool: 'Bash', text, match: { kind: 'prefix', words } };
  }
  if (s.includes(':*')) return { error: '":*" is only allowed at the end of a Bash rule' };
  if (s.includes('*')) return { tool: 'Bash', text, match: { kind: 'wildcard', parts: s.split('*') } };
  return { tool: 'Bash', text, match: { kind: 'exact', words: splitWords(s) } };
}

function splitWords(s: string): string[] {
  return s.trim().split(/\s+/).filter(Boolean);
}

/**
 * Whether `text` matches a pattern whose `*`s (between `parts`) stand for any text. Matched
 * by scanning, not as a regular expression: `.*` repeated backtracks exponentially, and a rule
 * such as `Bash(* * * * * * * * * * * * z)` froze the host for minutes on one command.
 * Each middle part taken at its leftmost place is always right when `*` matches anything.
 */
export function wildcardMatches(parts: readonly string[], text: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (parts.length === 1) return text === first;
  if (first.length + last.length > text.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const p of parts.slice(1, -1)) {
    const i = text.indexOf(p, at);
    if (i < 0 || i + p.length > end) return false;
    at = i + p.length;
  }
  return true;
}

/**
 * Gitignore-like paths: `src/**` is relative to the workspace root (a leading `/` too),
 * `//abs/**` and `~/x` are absolute, a pattern without `/` (`.env`) matches that name in
 * any folder.
 */
function pathMatcher(spec: string): (rel: string, abs: string) => boolean {
  if (spec.startsWith('//')) {
    const isMatch = globMatcher(spec.slice(1));
    return (_rel, abs) => isMatch(abs);
  }
  if (spec.startsWith('~/')) {
    const home = process.env.HOME ?? '';
    const isMatch = globMatcher(`${home}${spec.slice(1)}`);
    return (_rel, abs) => isMatch(abs);
  }
  const pattern = spec.replace(/^\.?\//, '');
  const anywhere = !pattern.replace(/\/$/, '').includes('/');
  const isMatch = globMatcher(pattern.endsWith('/') ? `${pattern}**` : pattern, { basename: anywhere });
  const under = globMatcher(`${pattern.replace(/\/$/, '')}/**`);
  // `Read(secrets)` also covers what is inside a folder named so.
  return (rel) => isMatch(rel) || under(rel) || (anywhere && rel.split('/').some((seg) => isMatch(seg)));
}

// What the permission rules say about one tool call: deny beats ask beats allow; a shell
// command is allowed by rules only when every part of it is and nothing in it escapes
// the rules (substitutions, redirections to files…); what no rule decides falls back to
// the tool's default (`agentTeams.toolApproval.bash` for shell commands). See
// docs/permissions.md.
import { reportProblem } from '../util/problems';
import { parseRuleSet, RULE_KINDS, wildcardMatches, type Rule, type RuleKind, type RuleSet, type RuleSource } from './rules';
import { analyzeShell, warmShellParser, type ShellAnalysis } from './shell-parser';

export type Verdict = 'allow' | 'ask' | 'deny';

export interface Decision {
  verdict: Verdict;
  /** In words, for the model (on deny) and the user (on ask). */
  reason: string;
  /** The rule that decided, when one did. */
  rule?: string;
  /** No rule decided: the tool's default did (a PreToolUse hook's allow may lift its ask). */
  fallback?: true;
}

const parsed = new WeakMap<object, RuleSet>();

/**
 * The parsed form of `source` (cached per object); malformed rules are reported once
 * through the problems sink, with where they came from, and left out.
 */
export function compileRules(source: RuleSource | undefined, origin = 'agentTeams.permissions'): RuleSet {
  if (!source) return { allow: [], ask: [], deny: [] };
  const hit = parsed.get(source);
  if (hit) return hit;
  const { rules, problems } = parseRuleSet(source);
  for (const p of problems) {
    reportProblem({ path: `${origin}.${p.kind}`, message: `ignored malformed rule ${JSON.stringify(p.rule)}: ${p.message}` });
  }
  parsed.set(source, rules);
  // Rules that judge shell commands will need the parser: its thread starts loading now.
  if (RULE_KINDS.some((k) => rules[k].some((r) => r.tool === 'Bash'))) warmShellParser();
  return rules;
}

export async function decideBash(source: RuleSource | undefined, command: string, fallback: Verdict): Promise<Decision> {
  const rules = compileRules(source);
  const bash = (k: RuleKind) => rules[k].filter((r): r is Extract<Rule, { tool: 'Bash' }> => r.tool === 'Bash');
  // Without Bash rules the policy decides alone; the command need not be parsed.
  if (!bash('allow').length && !bash('ask').length && !bash('deny').length) {
    return { verdict: fallback, fallback: true, reason: `no rule matches; agentTeams.toolApproval.bash is "${fallback}"` };
  }
  const a = await analyzeShell(command);
  // Deny and ask rules see every command it runs, wrapped ones too (`rm x` in `env rm x`).
  for (const kind of ['deny', 'ask'] as const) {
    for (const part of [...a.parts, ...a.inner]) {
      const r = bash(kind).find((rule) => bashMatches(rule, part));
      if (r) return { verdict: kind, rule: r.text, reason: `\`${shown(part)}\` matches the ${kind} rule ${r.text}` };
    }
  }
  const rest = allowedOrFallback(bash('allow'), command, a, fallback);
  // A command whose parts cannot all be seen, or one that runs a command it names only when
  // it runs (`$(echo rm) x`, `eval "$c"`, `… | sh`), cannot be cleared of deny and ask rules.
  const unseen = a.error ? a.hazards[0] : a.unknown[0];
  if (unseen && rest.verdict === 'allow' && (bash('deny').length || bash('ask').length)) {
    return { verdict: 'ask', reason: `${unseen}, so the deny and ask rules cannot be checked` };
  }
  return rest;
}

/** What allow rules and the fallback say, once no deny or ask rule matched. */
function allowedOrFallback(allow: Array<Extract<Rule, { tool: 'Bash' }>>, command: string, a: ShellAnalysis, fallback: Verdict): Decision {
  // An exact rule matches the command's words; a newline (or any control character) would
  // make them two commands, so such a command never matches one.
  const oneLine = !/[\u0000-\u0008\u000a-\u001f\u007f]/.test(command);
  const exact = oneLine && allow.find((r) => r.match.kind === 'exact' && r.match.words.join(' ') === command.trim().split(/[ \t]+/).join(' '));
  if (exact) return { verdict: 'allow', rule: exact.text, reason: `allowed by ${exact.text}` };
  const uncovered = a.parts.filter((p) => !allow.some((r) => bashMatches(r, p)));
  if (!a.hazards.length && !uncovered.length && a.parts.length) {
    const used = [...new Set(a.parts.map((p) => allow.find((r) => bashMatches(r, p))!.text))];
    return { verdict: 'allow', rule: used.join(', '), reason: `allowed by ${used.join(', ')}` };
  }
  const why = [
    ...uncovered.map((p) => `\`${shown(p)}\` is not allowed by any rule`),
    ...a.hazards.map((h) => `${h} cannot be allowed by rules`),
  ];
  const partly = allow.length > 0 && a.parts.length > 1 ? ' (every part of a compound command must be allowed)' : '';
  return { verdict: fallback, fallback: true, reason: `${why.join('; ') || 'no rule matches'}${partly}; agentTeams.toolApproval.bash is "${fallback}"` };
}

function bashMatches(rule: Extract<Rule, { tool: 'Bash' }>, words: string[]): boolean {
  const m = rule.match;
  switch (m.kind) {
    case 'any': return true;
    case 'exact': return m.words.length === words.length && m.words.every((w, i) => w === words[i]);
    case 'prefix': return m.words.length <= words.length && m.words.every((w, i) => w === words[i]);
    case 'wildcard': return !words.includes('\u0000') && wildcardMatches(m.parts, words.join(' '));
  }
}

function shown(words: string[]): string {
  return words.map((w) => (w === '\u0000' ? '…' : w)).join(' ');
}

/**
 * Rules for a file tool: Edit rules cover every tool that changes files (as in Claude
 * Code), Write rules also cover write_file, Read rules cover read_file. Undefined when no
 * rule speaks: the tool's own default applies.
 */
export function decideFile(source: RuleSource | undefined, tool: 'Edit' | 'Write' | 'Read', rel: string, abs: string): Decision | undefined {
  const rules = compileRules(source);
  const tools = tool === 'Read' ? ['Read'] : tool === 'Write' ? ['Write', 'Edit'] : ['Edit', 'Write'];
  for (const kind of RULE_KINDS) {
    const r = rules[kind].find((x) => x.tool !== 'Bash' && x.tool !== 'mcp' && tools.includes(x.tool) && (!x.path || x.path(rel, abs)));
    if (r) return { verdict: kind, rule: r.text, reason: `${rel} matches the ${kind} rule ${r.text}` };
  }
  return undefined;
}

/** Rules by tool name (`mcp__server__tool`); undefined when none matches. */
export function decideToolName(source: RuleSource | undefined, toolName: string): Decision | undefined {
  const rules = compileRules(source);
  const m = /^mcp__([A-Za-z0-9_-]+?)__(.+)$/.exec(toolName);
  if (!m) return undefined;
  for (const kind of RULE_KINDS) {
    const r = rules[kind].find((x) => x.tool === 'mcp' && x.server === m[1] && (x.name === null || x.name === m[2]));
    if (r) return { verdict: kind, rule: r.text, reason: `${toolName} matches the ${kind} rule ${r.text}` };
  }
  return undefined;
}

/** Launchers whose second word is a subcommand and third the script (`npm run test`). */
const RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun', 'npx', 'cargo', 'go', 'git', 'make', 'docker', 'kubectl', 'python', 'python3', 'node', 'uv', 'pip']);

/**
 * What "Always allow" offers for `command`: the exact command, and — for one plain
 * command — a prefix rule on its command and subcommand (`Bash(npm test:*)`).
 */
export async function suggestRules(command: string): Promise<string[]> {
  const exact = `Bash(${command.trim()})`;
  if (/[\r\n]/.test(command) || command.includes(':*')) return [];
  const a = await analyzeShell(command);
  if (a.hazards.length || a.parts.length !== 1) return [exact];
  const words = a.parts[0];
  const prefix = [words[0]];
  const sub = words[1];
  if (sub !== undefined && RUNNERS.has(words[0]) && /^[A-Za-z0-9][\w.:-]*$/.test(sub)) {
    prefix.push(sub);
    const script = words[2];
    if (sub === 'run' && script !== undefined && /^[\w.:-]+$/.test(script)) prefix.push(script);
  }
  if (prefix.some((w) => /[\s()]/.test(w))) return [exact];
  return [exact, `Bash(${prefix.join(' ')}:*)`];
}

/**
 * The part of an ask's reason worth showing the user: nothing for a plain command no rule
 * covers (the question says it all), else the reason without the fallback's tail.
 */
export function askReason(reason: string | undefined): string {
  if (!reason) return '';
  const r = reason.replace(/; agentTeams\.toolApproval\.bash is "\w+"$/, '');
  return r === 'no rule matches' || /^`[^`]*` is not allowed by any rule$/.test(r) ? '' : r;
}

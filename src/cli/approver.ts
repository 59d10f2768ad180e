// Approval at the prompt (docs/permissions.md, docs/mcp.md). A shell command no rule
// allowed: y = allow once, a = always allow this exact command, p = always allow its prefix
// rule (`Bash(npm test:*)`), n (or Enter) = deny; "always" adds the rule to this session's
// allow rules (onRule). An MCP tool call: y / a(lways `mcp__s__t`) / s(erver: `mcp__s`) / n; an MCP
// server's first start: y / n after its command line. An ask rule on a file change shows the
// change as a diff first; other ask rules get y / n. Questions from several agents are asked
// one after another, never on top of each other; a cancelled turn (its signal) denies.
import { type Approver, askReason, type BashDecision, type BashQuestion, type FileChangeQuestion, type McpStartRequest, type NetworkDecision, type TeamAnswer, type TeammateProposal, teamProposalText } from '../core/session';
import type { Terminal } from './terminal';

type Choice = { key: string; word: string; label: string; then: () => BashDecision };

export class PromptApprover implements Approver {
  private queue: Promise<unknown> = Promise.resolve();
  /** Called with the rule the user chose to always allow (the session adds it to its rules). */
  onRule: (rule: string) => void = () => undefined;
  /** Called with a host the user chose to always allow (the session adds it to its allowed hosts). */
  onDomain: (host: string) => void = () => undefined;

  constructor(private readonly term: Terminal) {}

  bash(agent: string, command: string, signal: AbortSignal, question?: BashQuestion): Promise<BashDecision> {
    const [exact, prefix] = question?.suggestions ?? [];
    const why = askReason(question?.reason);
    const rule = (r: string) => this.rule(r);
    const outside = question?.unsandboxed ? ' outside the sandbox' : '';
    return this.queued(() => this.question(
      `${agent} wants to run a shell command${outside}:\n    ${command.split('\n').join('\n    ')}${why ? `\n  (${why})` : ''}`, signal, 'Allow?', [
        ...(exact ? [{ key: 'a', word: 'always', label: '[a]lways this command', then: rule(exact) }] : []),
        ...(prefix ? [{ key: 'p', word: 'prefix', label: `[p]refix: always ${prefix}`, then: rule(prefix) }] : []),
      ]));
  }

  /** A sandboxed command wants a host no setting allows (docs/security.md): y / a(lways: the host joins this session's) / n. */
  async network(agent: string, host: string, signal: AbortSignal): Promise<NetworkDecision> {
    let always = false;
    const d = await this.queued(() => this.question(`${agent}'s command wants to reach ${host} (not in the sandbox's allowed hosts).`, signal, 'Allow?', [
      { key: 'a', word: 'always', label: `[a]lways ${host}`, then: () => { always = true; return 'allow'; } },
    ]));
    if (d !== 'allow') return 'deny';
    if (!always) return 'allow';
    this.onDomain(host);
    this.term.print(`Added ${host} to this session's allowed hosts.`);
    return 'always';
  }

  /** An MCP tool call under the default `ask` rule (docs/mcp.md); "always" adds its rule (or its server's) to the session's. */
  mcpTool(agent: string, tool: string, input: unknown, signal: AbortSignal, suggestions: string[] = [tool]): Promise<BashDecision> {
    const [toolRule, serverRule] = suggestions;
    const args = JSON.stringify(input ?? {});
    return this.queued(() => this.question(`${agent} wants to call the MCP tool ${tool} with:\n    ${args.length > 400 ? `${args.slice(0, 400)}…` : args}`, signal, 'Allow?', [
      ...(toolRule ? [{ key: 'a', word: 'always', label: '[a]lways this tool', then: this.rule(toolRule) }] : []),
      ...(serverRule ? [{ key: 's', word: 'server', label: `[s]erver: always ${serverRule}`, then: this.rule(serverRule) }] : []),
    ]));
  }

  /** A server from .mcp.json is about to start for the first time this session: its command line first. */
  async mcpServerStart(req: McpStartRequest, signal: AbortSignal): Promise<boolean> {
    const what = req.transport !== 'stdio' ? 'connect to' : 'run';
    const d = await this.queued(() => this.question(`MCP server "${req.server}" from .mcp.json wants to ${what}:\n${req.details.replace(/^/gm, '    ')}`, signal, 'Start it?', []));
    return d === 'allow';
  }

  /**
   * agentTeams.confirmTeam (--confirm-team): the team the lead proposes starts only on y;
   * "n: <why>" declines and tells the lead what to change.
   */
  confirmTeam(team: readonly TeammateProposal[], signal: AbortSignal): Promise<TeamAnswer> {
    return this.queued(async () => {
      this.term.print(teamProposalText(team));
      const q = `Start ${team.length === 1 ? 'it' : 'this team'}? [y]es / [N]o (or n: <what to change>, the lead reads it):`;
      for (;;) {
        const line = await this.term.ask(q, signal, (l) => teamAnswer(l) !== null);
        if (line === null) return { start: false };
        const answer = teamAnswer(line);
        if (answer) return answer;
        this.term.print('Please answer y, n, or n: <what to change>.');
      }
    });
  }

  fileChange(agent: string, change: FileChangeQuestion, signal: AbortSignal): Promise<BashDecision> {
    return this.queued(() => this.question(
      `${agent} wants to ${change.before === null ? 'create' : 'change'} ${change.path} (${change.why ?? `the rule ${change.rule} asks first`}):\n${lineDiff(change.before ?? '', change.after)}`,
      signal, 'Allow this change?', []));
  }

  tool(agent: string, what: string, reason: string, signal: AbortSignal): Promise<BashDecision> {
    return this.queued(() => this.question(`${agent} wants to ${what} (${reason}).`, signal, 'Allow?', []));
  }

  /** A choice that adds allow rule `r` to the session's rules. */
  private rule(r: string): () => BashDecision {
    return () => {
      this.onRule(r);
      this.term.print(`Added allow rule ${r} for this session.`);
      return 'allow';
    };
  }

  private queued<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async question(text: string, signal: AbortSignal, q: string, extra: Choice[]): Promise<BashDecision> {
    this.term.print(text);
    const options = ['[y]es', ...extra.map((c) => c.label), '[N]o'].join(' / ');
    const accepted = new Set(['', 'y', 'yes', 'n', 'no', ...extra.flatMap((c) => [c.key, c.word])]);
    // Lines that answer the question; anything else typed meanwhile is a command or a prompt.
    const isAnswer = (line: string) => accepted.has(line.trim().toLowerCase());
    for (;;) {
      const answer = await this.term.ask(`${q} ${options}:`, signal, (l) => isAnswer(l) || ANSWERS.has(l.trim().toLowerCase()));
      if (answer === null) return 'deny';
      const a = answer.trim().toLowerCase();
      if (a === 'y' || a === 'yes') return 'allow';
      const choice = extra.find((c) => a === c.key || a === c.word);
      if (choice) return choice.then();
      if (a === '' || a === 'n' || a === 'no') return 'deny';
      this.term.print(`Please answer ${['y', ...extra.map((c) => c.key), 'n'].join(', ')}.`);
    }
  }
}

/** y, n (or Enter), or a no with what to change ("n: two people are enough"); null: no answer. */
export function teamAnswer(line: string): TeamAnswer | null {
  const l = line.trim();
  if (/^(y|yes)$/i.test(l)) return { start: true };
  if (/^(n|no)?$/i.test(l)) return { start: false };
  const why = /^(?:n|no)[\s:,-]+(\S.*)$/i.exec(l)?.[1];
  return why ? { start: false, reason: why } : null;
}

/** Every answer any question takes: typed while another question is open, it is not a prompt. */
const ANSWERS = new Set(['', 'y', 'yes', 'a', 'always', 'p', 'prefix', 's', 'server', 'n', 'no']);

/** A compact diff: the common head and tail are skipped, the middle shown as -/+ lines. */
export function lineDiff(before: string, after: string, maxLines = 80): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const lines = [
    `@@ line ${head + 1} @@`,
    ...a.slice(head, a.length - tail).map((l) => `- ${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+ ${l}`),
  ];
  const shown = lines.slice(0, maxLines);
  if (lines.length > maxLines) shown.push(`… ${lines.length - maxLines} more lines`);
  return shown.map((l) => `    ${l}`).join('\n');
}

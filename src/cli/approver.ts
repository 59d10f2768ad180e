// Approval at the prompt: bash (policy `ask`) and MCP tool calls: y = allow once, a = always
// allow this exact command (this tool) for the session, n (or Enter) = deny; an MCP server's
// first start: y / n, after its command line. Questions from several agents are asked
// one after another, never on top of each other; a cancelled turn (its signal) denies.
import type { McpStartRequest } from '../core/mcp/manager';
import { proposalText, type Approver, type BashDecision, type TeammateProposal } from '../core/runtime/types';
import type { Terminal } from './terminal';

export class PromptApprover implements Approver {
  private always = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly term: Terminal) {}

  bash(agent: string, command: string, signal: AbortSignal): Promise<BashDecision> {
    return this.queued(() => this.question(`bash:${command}`, `${agent} wants to run a shell command:\n    ${command.split('\n').join('\n    ')}`, 'this command', signal));
  }

  /** An MCP tool call under the default `ask` rule (docs/mcp.md); "always" holds for the session. */
  mcpTool(agent: string, tool: string, input: unknown, signal: AbortSignal): Promise<BashDecision> {
    const args = JSON.stringify(input ?? {});
    return this.queued(() => this.question(`mcp:${tool}`, `${agent} wants to call the MCP tool ${tool} with:\n    ${args.length > 400 ? `${args.slice(0, 400)}…` : args}`, 'this tool', signal));
  }

  /** A server from .mcp.json is about to start for the first time this session: its command line first. */
  async mcpServerStart(req: McpStartRequest, signal: AbortSignal): Promise<boolean> {
    const what = req.transport === 'http' ? 'connect to' : 'run';
    const d = await this.queued(() => this.question(null, `MCP server "${req.server}" from .mcp.json wants to ${what}:\n    ${req.commandLine}`, null, signal, 'Start it?'));
    return d === 'allow';
  }

  /** agentTeams.confirmTeam (--confirm-team): a teammate the lead proposes starts only on y. */
  async confirmTeammate(p: TeammateProposal, signal: AbortSignal): Promise<boolean> {
    return (await this.queued(() => this.question(null, `The lead proposes a teammate: ${proposalText(p)}`, null, signal, 'Start it?'))) === 'allow';
  }

  private queued(fn: () => Promise<BashDecision>): Promise<BashDecision> {
    const next = this.queue.then(fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async question(key: string | null, text: string, always: string | null, signal: AbortSignal, q = 'Allow?'): Promise<BashDecision> {
    if (key && this.always.has(key)) return 'allow';
    this.term.print(text);
    const options = always ? `[y]es / [a]lways ${always} / [N]o` : '[y]es / [N]o';
    for (;;) {
      const answer = await this.term.ask(`${q} ${options}:`, signal, isAnswer);
      if (answer === null) return 'deny';
      const a = answer.trim().toLowerCase();
      if (a === 'y' || a === 'yes') return 'allow';
      if (key && always && (a === 'a' || a === 'always')) {
        this.always.add(key);
        return 'allow';
      }
      if (a === '' || a === 'n' || a === 'no') return 'deny';
      this.term.print(always ? 'Please answer y, a or n.' : 'Please answer y or n.');
    }
  }
}

const ANSWERS = new Set(['', 'y', 'yes', 'a', 'always', 'n', 'no']);
/** Lines that answer the question; anything else typed meanwhile is a command or a prompt. */
const isAnswer = (line: string): boolean => ANSWERS.has(line.trim().toLowerCase());

// The approver of a headless run (`agent-teams run`, docs/headless.md): nobody is there to
// answer, so every question is answered "no" at once and reported — the agent gets a
// refusal it can work around, the run's output lists what was denied. Rules and
// `--bash allow` decide before anything is asked, so they still let work through.
import type { Approver, BashDecision, BashQuestion, FileChangeQuestion, McpStartRequest, TeamAnswer, TeammateProposal } from '../core/session';

export interface Denial {
  agent: string;
  what: string;
  reason?: string;
}

export class HeadlessApprover implements Approver {
  readonly denied: Denial[] = [];

  constructor(private readonly report: (d: Denial) => void) {}

  private deny(d: Denial): Promise<'deny'> {
    this.denied.push(d);
    this.report(d);
    return Promise.resolve('deny');
  }

  bash(agent: string, command: string, _s: AbortSignal, q?: BashQuestion): Promise<BashDecision> {
    return this.deny({ agent, what: `run \`${command}\``, reason: q?.reason });
  }

  fileChange(agent: string, change: FileChangeQuestion): Promise<BashDecision> {
    return this.deny({ agent, what: `change ${change.path}`, reason: `the rule ${change.rule} asks first` });
  }

  tool(agent: string, what: string, reason: string): Promise<BashDecision> {
    return this.deny({ agent, what, reason });
  }

  mcpTool(agent: string, tool: string): Promise<'allow' | 'deny'> {
    return this.deny({ agent, what: `call the MCP tool ${tool}`, reason: 'no rule allows it (docs/mcp.md)' });
  }

  async mcpServerStart(req: McpStartRequest): Promise<boolean> {
    await this.deny({ agent: 'lead', what: `start the MCP server "${req.server}" (${req.commandLine})`, reason: 'a headless run starts no MCP server it would have to ask about' });
    return false;
  }

  async confirmTeam(team: readonly TeammateProposal[]): Promise<TeamAnswer> {
    await this.deny({ agent: 'lead', what: `start ${team.map((t) => t.name).join(', ')}`, reason: 'agentTeams.confirmTeam asks the user' });
    return { start: false, reason: 'Nobody can confirm a team in a headless run; run without --confirm-team.' };
  }
}

// The agent definitions a runner works with (.team/agents, .claude/agents; see
// core/roles): read at start and before each spawn or user turn, each problem reported once,
// and the lead's system prompt built from them.
import type { Member } from '../../shared/schemas';
import { definitionsForLead, type AgentDefinition, type Definitions } from '../roles/agent-definitions';
import { loadTeamDefinitions } from '../roles/roles';
import { CONFIRM_TEAM_NOTE, LEAD_WORKTREE_NOTE, leadSystem } from './prompts';
import type { RuntimeEvent } from './types';

export class RunnerDefinitions {
  private defs: Definitions = { definitions: [], problems: [] };
  private reported = new Set<string>();

  constructor(private readonly root: string, private readonly teamModel: () => string, private readonly emit: (e: RuntimeEvent) => void) {}

  /** Agent definitions as last read. */
  get current(): Definitions {
    return this.defs;
  }

  /** Re-reads the definitions; a problem is reported once per file and message. */
  async load(): Promise<Definitions> {
    this.defs = await loadTeamDefinitions(this.root, this.teamModel());
    for (const p of this.defs.problems) {
      const key = `${p.path}\n${p.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.emit({ type: 'notice', level: 'warning', message: `Agent definition ${p.path}: ${p.message}` });
    }
    return this.defs;
  }

  /** The definition `m` was spawned from; a notice when it is gone or broken (it keeps its model and tools). */
  forMember(m: Member): AgentDefinition | undefined {
    if (!m.agent_type) return undefined;
    const def = this.defs.definitions.find((d) => d.name === m.agent_type);
    if (!def) {
      this.emit({ type: 'notice', level: 'warning', agent: m.name, message: `${m.name}'s agent definition "${m.agent_type}" is gone or broken: it keeps its model and tools, without the definition's instructions.` });
    }
    return def;
  }

  /** The lead's system prompt: byte-identical while the definitions stay the same. */
  leadPrompt(teamName: string, confirmTeam = false): string {
    return [leadSystem(teamName, this.root), LEAD_WORKTREE_NOTE, confirmTeam ? CONFIRM_TEAM_NOTE : '', definitionsForLead(this.defs.definitions)].filter(Boolean).join('\n');
  }
}

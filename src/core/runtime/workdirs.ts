// Where a runner's agents work: the worktree folders of teammates and tasks (a checkout made
// now is set up before its agent's first model call, worktree-prep.ts), and the file tools
// rooted in a folder, every write recorded in the change log (src/core/watch/changes.ts).
// Tools reach the folders through ToolHost.workdirs; agents get their file tools from
// AgentEnv.workspaceFs (agent-env.ts).
import { WorkspaceFs } from '../exec/workspace-fs';
import type { ProcessRegistry } from '../exec/process-group';
import type { CommandSandbox } from '../sandbox/sandbox';
import type { Team } from '../team/team';
import { ChangeLog } from '../watch/change-log';
import { changeRecorder, currentTask } from '../watch/changes';
import { assignedToOneTask, overlapNote, warnOverlaps } from '../watch/overlaps';
import type { WorktreeInfo, WorktreeManager } from '../worktree/manager';
import type { WorktreeSetup } from '../worktree/setup-config';
import type { Workdirs } from './tools/definition';
import type { TranscriptEvent } from './transcript';
import type { RuntimeEvent } from './types';
import { prepareWorktree } from './worktree-prep';

/** The agent a new checkout is set up for: its transcript gets the output. */
export interface PreparedAgent {
  readonly name: string;
  readonly signal: AbortSignal;
  readonly transcript: { note(e: TranscriptEvent): Promise<void> };
}

export interface WorkdirsDeps {
  team: Team;
  worktrees: WorktreeManager;
  processes: ProcessRegistry;
  sandbox: CommandSandbox;
  emit(e: RuntimeEvent): void;
  /** agentTeams.worktree.setup, read when a checkout is set up. */
  hostSetup(): WorktreeSetup | undefined;
  /** The agent called `name` that runs here. */
  agentNamed(name: string): PreparedAgent | undefined;
}

export class AgentWorkdirs implements Workdirs {
  /** Checkouts made for a spawn whose setup the teammate runs before its first call, by teammate. */
  private readonly unprepared = new Map<string, WorktreeInfo>();

  constructor(private readonly d: WorkdirsDeps) {}

  /** The worktree a teammate is spawned into; a checkout made now is set up by the teammate (preparationFor). */
  async open(name: string): Promise<WorktreeInfo> {
    const info = await this.d.worktrees.ensure(name);
    if (info.opened) this.unprepared.set(name, info);
    return info;
  }

  /** The setup of `agent`'s new checkout, to run before its first model call (worktree-prep.ts), or null. */
  preparationFor(agent: PreparedAgent): (() => Promise<string | null>) | null {
    const info = this.unprepared.get(agent.name);
    this.unprepared.delete(agent.name);
    return info ? () => this.prepare(agent, info) : null;
  }

  private prepare(agent: PreparedAgent, info: WorktreeInfo): Promise<string | null> {
    const { team, worktrees, processes, sandbox } = this.d;
    const env = { team, worktrees, processes, emit: (e: RuntimeEvent) => this.d.emit(e), hostSetup: this.d.hostSetup(), sandbox };
    return prepareWorktree(env, { agent: agent.name, worktree: info.name, workdir: info.workdir, note: (e) => agent.transcript.note(e), signal: agent.signal });
  }

  async dir(name: string, agent?: string): Promise<string> {
    const info = await this.d.worktrees.ensure(name);
    const who = agent === undefined ? undefined : this.d.agentNamed(agent);
    if (info.opened && who) await this.prepare(who, info);
    return info.workdir;
  }

  problem(name: string): Promise<string | null> {
    return this.d.worktrees.problemWith(name);
  }
}

/** File tools rooted at `dir` for `agent`, every write recorded in the change log and checked for overlaps. */
export function recordingFs(team: Team): (agent: string, dir: string) => WorkspaceFs {
  // One teller for the runner: notes to one agent about another are gathered across its tools.
  const tell = overlapNote(team.mailbox);
  return (agent, dir) => {
    const log = new ChangeLog(team.root);
    const assigned = async (path: string) => assignedToOneTask(await team.tasks.select((t) => !!t.files?.length), path);
    return new WorkspaceFs(dir, undefined, changeRecorder(log, agent, dir, () => currentTask((pick) => team.tasks.select(pick), agent), (rec) => warnOverlaps(log, rec, tell, assigned)));
  };
}

// The hooks of a runner (docs/hooks.md): the folder's hooks loaded when it starts, every
// question to the user told to the Notification hooks first, SessionStart once the lead is
// there, and the user's words through UserPromptSubmit. Tools and agents reach the hooks
// themselves through ToolHost.hooks; this is what the runner does with them.
import { Hooks, type HookAgent, type HooksOptions } from '../hooks/hooks';
import { notifyingApprover } from '../hooks/notify';
import { hookAgent, type HookedAgent } from '../hooks/tool-hooks';
import type { Team } from '../team/team';
import { RuntimeError } from './runner-options';
import type { Approver, RuntimeEvent } from './types';

export interface RunnerHooksDeps {
  team: Team;
  hostId: string;
  /** Hooks run only in a trusted folder (RunnerOptions.hooks). */
  trusted: boolean;
  /** The host's approver, before the Notification hooks are put in front of it. */
  approver: Approver;
  emit(e: RuntimeEvent): void;
  /** The agent called `name` that runs here. */
  agentNamed(name: string): Pick<HookedAgent, 'name' | 'cwd' | 'transcript'> | undefined;
  /** Where a hook's command runs (the command sandbox; hooks.ts HooksOptions.plan). */
  plan?: HooksOptions['plan'];
}

export class RunnerHooks {
  /** The folder's hooks, loaded by load(). */
  readonly hooks: Hooks;
  /** The host's approver, telling the Notification hooks of every question first. */
  readonly approver: Approver;

  constructor(private readonly d: RunnerHooksDeps) {
    const root = d.team.root;
    this.hooks = new Hooks({
      root, sessionId: d.hostId, trusted: d.trusted, plan: d.plan,
      warn: (message, agent) => d.emit({ type: 'notice', level: 'warning', message, ...(agent ? { agent } : {}) }),
    });
    this.approver = notifyingApprover(d.approver, (agent, message) => {
      if (this.hooks.has('Notification')) void this.hooks.run('Notification', this.agentFor(agent), { message, notification_type: 'permission_prompt' }, ['permission_prompt']);
    });
  }

  /** `name` as Hooks.run needs it (an agent this host does not run: no transcript line). */
  agentFor(name: string): HookAgent {
    const a = this.d.agentNamed(name);
    return a ? hookAgent(a) : { name, cwd: this.d.team.root, transcriptPath: this.d.team.paths.transcript(name) };
  }

  /** Loads the hooks (a trusted folder only). */
  async load(teamName: string): Promise<void> {
    await this.hooks.load();
    this.hooks.team = teamName;
  }

  /** SessionStart, once the lead is there (not awaited: a slow hook never holds the start up). */
  sessionStart(): void {
    if (this.hooks.has('SessionStart')) void this.hooks.run('SessionStart', this.agentFor('lead'), { source: 'startup' }, ['startup']);
  }

  /**
   * The user's words through the UserPromptSubmit hooks: a block refuses them (an error
   * with the hook's reason), context a hook adds is appended.
   */
  async prompt(prompt: string): Promise<string> {
    if (!this.hooks.has('UserPromptSubmit')) return prompt;
    const o = await this.hooks.run('UserPromptSubmit', this.agentFor('lead'), { prompt });
    if (o.blocked) throw new RuntimeError(`A UserPromptSubmit hook blocked the prompt: ${o.feedback}`);
    return o.context ? `${prompt}\n\n${o.context}` : prompt;
  }
}

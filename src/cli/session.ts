// The interactive session (`agent-teams` with no command): one team session over the folder,
// the lead driven by what the user types, teammates in this process, a terminal that
// shows what they do. Ctrl-C cancels the lead's turn; /quit or EOF ends the session.
import { randomBytes } from 'node:crypto';
import { createModelFactory, resolveModelConfig, resolveOpenAIConfig, type ModelConfig } from '../core/session/models';
import { ACTIONS, type Disposable, hostLabel, runAction, type ModelFactory, providerOf, type RuntimeEvent, type RuntimeSettings, TeamSession } from '../core/session';
import { PromptApprover } from './approver';
import { describeEvent } from './event-printer';
import { writeLine, type CliIo } from './io';
import { replScope } from './repl-action';
import { ReplUsageError, runSlash, type ReplHost } from './repl-commands';
import { Terminal } from './terminal';
import { packageVersion } from './version';
import { watchTeam } from './watchers';

export const PROMPT = 'agent-teams >> ';
const RAISE_BUDGET = 'To continue, /quit and start the session again with a higher --token-budget.';
/** How long /quit waits for teammates to answer their shutdown requests. */
const QUIT_WAIT_MS = 5000;

export interface SessionOptions {
  io: CliIo;
  root: string;
  settings: RuntimeSettings;
  /** Whether this folder's `.mcp.json` may start servers (trust.ts); default yes. */
  mcpTrusted?: boolean;
  /** Whether this folder's hooks may run (trust.ts); default yes. */
  hooksTrusted?: boolean;
}

/**
 * The model factory from the environment (README.md, "Command line"; docs/models.md):
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OPENAI_API_KEY / OPENAI_BASE_URL, each read once
 * and then taken out of this process's environment. A team whose model is Anthropic's needs
 * its key to start; a provider without its key fails its agents' calls with the reason. Null
 * after printing why not.
 */
export function modelFactory(io: CliIo, model: string): ModelFactory | null {
  const anthropicNeeded = providerOf(model) === 'anthropic';
  let anthropic: ModelConfig | null = null;
  if (anthropicNeeded || io.env.ANTHROPIC_API_KEY?.trim()) {
    anthropic = modelConfig(io);
    if (!anthropic && anthropicNeeded) return null;
  }
  const anthropicBaseUrl = io.env.ANTHROPIC_BASE_URL;
  const openai = { envKey: io.env.OPENAI_API_KEY, envBaseUrl: io.env.OPENAI_BASE_URL };
  delete io.env.OPENAI_API_KEY;
  return createModelFactory({
    anthropic: () => anthropic ?? resolveModelConfig({ envKey: undefined, envBaseUrl: anthropicBaseUrl }),
    openai: () => resolveOpenAIConfig(openai),
  });
}

/** Key and base URL from the environment (README.md, "Command line"); null after printing why not. */
function modelConfig(io: CliIo): ModelConfig | null {
  if (!io.env.ANTHROPIC_API_KEY?.trim()) {
    writeLine(io.stderr, 'agent-teams: no Anthropic API key. Set ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for another endpoint)\n'
      + 'to start a session. The subcommands (agent-teams team, tasks, send, inbox…) work without a key.');
    return null;
  }
  try {
    const config = resolveModelConfig({ envKey: io.env.ANTHROPIC_API_KEY, envBaseUrl: io.env.ANTHROPIC_BASE_URL });
    // Read once, then out of this process's environment: nothing started from here (an MCP
    // server, a hook) inherits it. /proc/<pid>/environ still shows the block the process
    // started with, which is why commands run in a pid namespace of their own (docs/security.md).
    for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']) delete io.env[k];
    return config;
  } catch (err) {
    writeLine(io.stderr, `agent-teams: ${(err as Error).message}`);
    return null;
  }
}

export async function runSession(opts: SessionOptions): Promise<number> {
  const models = modelFactory(opts.io, opts.settings.model);
  if (!models) return 1;
  const term = new Terminal(opts.io, PROMPT);
  let rt: TeamSession;
  const approver = new PromptApprover(term);
  try {
    rt = await TeamSession.start({
      root: opts.root,
      settings: opts.settings,
      // Readable in another host's "run by another window (host …)" message.
      hostId: `cli-${process.pid}-${randomBytes(2).toString('hex')}`,
      agents: {
        models,
        approver,
        raiseBudget: RAISE_BUDGET,
        mcp: { trusted: () => opts.mcpTrusted ?? true },
        hooks: { trusted: opts.hooksTrusted ?? true },
      },
    });
  } catch (err) {
    term.close();
    writeLine(opts.io.stderr, `agent-teams: could not start the team: ${(err as Error).message}`);
    return 1;
  }
  // "Always allow" at the prompt adds the rule to this session's rules.
  approver.onRule = (rule) => {
    const p = rt.settings().permissions;
    rt.updateSettings({ permissions: { ...p, allow: [...p.allow, rule] } });
  };
  // "Always" for a host adds it to this session's allowed hosts (docs/security.md).
  approver.onDomain = (host) => {
    const sb = rt.settings().sandbox;
    rt.updateSettings({ sandbox: { ...sb, allowedDomains: [...sb.allowedDomains, host] } });
  };
  return new Session(rt, term, opts).run();
}

class Session implements ReplHost {
  private subs: Disposable[] = [];
  private quitting: Promise<void> | null = null;
  /** Aborted by Ctrl-C during /quit: stop teammates now instead of waiting for answers. */
  private hurry = new AbortController();
  /** A first Ctrl-C at an idle prompt arms; a second one quits. */
  private armed = false;
  /** User prompts sent to the lead and not yet answered. */
  private turns = 0;
  private finished!: (code: number) => void;
  /** Errors the agents hit (a failed model call, a crash): the session then exits 1. */
  private errors = 0;

  constructor(readonly rt: TeamSession, private readonly term: Terminal, private readonly opts: SessionOptions) {}

  print = (text: string): void => this.term.print(text);

  async run(): Promise<number> {
    // Held until the session ends: a lead paused on the budget waits on nothing that keeps
    // node running, and a piped session would otherwise end mid-script with exit code 0.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    const done = new Promise<number>((resolve) => (this.finished = resolve)).finally(() => clearInterval(keepAlive));
    const unTerminate = this.opts.io.onTerminate?.((signal) => this.terminate(signal));
    if (unTerminate) this.subs.push({ dispose: unTerminate });
    await this.banner();
    this.subs.push(this.rt.onEvent((e) => {
      if (this.streamLead(e)) return;
      if (e.type === 'notice' && e.level === 'error') this.errors++;
      // A session's budget cannot be raised from inside it: a paused lead turn would wait
      // forever (and a piped script with it), so it ends, and the prompt comes back.
      if (e.type === 'activity' && e.agent === 'lead' && e.activity.kind === 'paused') this.endPausedTurn();
      const text = describeEvent(e);
      if (text) this.print(text);
    }));
    // A turn carried on from an earlier session may have paused before anyone listened.
    if (this.rt.activity('lead').kind === 'paused') this.endPausedTurn(true);
    this.subs.push(await watchTeam(this.rt, this.print));
    this.term.start({
      line: (line) => this.onLine(line),
      runsNow: (line) => line.trim().startsWith('/'),
      interrupt: () => this.interrupt(),
      end: () => void this.quit(),
    });
    return done;
  }

  private endPausedTurn(unseen = false): void {
    this.rt.cancelLeadTurn();
    this.print(`The lead's turn ended: the token budget is spent.${unseen ? ` ${RAISE_BUDGET}` : ''}`);
  }

  /** The lead's text of the model call under way, as streamed so far, and from which attempt. */
  private streamed = { text: '', attempt: 0 };

  /**
   * The lead's words appear as the model writes them; the whole text that follows (the
   * 'text' event) is then not printed again. True when `e` was handled here.
   */
  private streamLead(e: RuntimeEvent): boolean {
    if (e.agent !== 'lead') return false;
    if (e.type === 'activity' && e.activity.kind === 'requesting') this.streamed = { text: '', attempt: 0 };
    if (e.type === 'text_delta') {
      if (this.streamed.text && e.attempt !== this.streamed.attempt) {
        this.term.endStream(false);
        this.print('(the reply starts again)');
        this.streamed.text = '';
      }
      this.streamed.attempt = e.attempt;
      this.streamed.text += e.text;
      this.term.stream(e.text);
      return true;
    }
    if (e.type === 'text' && this.streamed.text.includes(e.text.trim())) {
      this.term.endStream();
      return true;
    }
    return false;
  }

  private async banner(): Promise<void> {
    const { rt, opts } = this;
    const s = opts.settings;
    const config = await rt.view.roster();
    this.print(`Agent Teams ${await packageVersion()}: team "${config.team_name}" in ${opts.root}`);
    this.print(`model ${s.model}, bash: ${s.bashPolicy}, plans approved by: ${s.planApproval}. /help lists commands; Ctrl-C cancels a turn.`);
    const live = config.members.filter((m) => m.status !== 'shutdown');
    const remote = live.filter((m) => rt.activity(m.name).kind === 'remote');
    const local = live.filter((m) => rt.activity(m.name).kind !== 'remote');
    if (local.length) this.print(`Resumed here: ${local.map((m) => `${m.name} (${m.status})`).join(', ')}`);
    for (const m of remote) this.print(`${m.name} is run by another host: ${hostLabel(m)}. Shown here, not run here.`);
    const lead = rt.activity('lead');
    if (lead.kind === 'remote') {
      this.print(`The lead is run by another host (${lead.host}): what you type goes to its inbox, and it answers there.`);
    }
  }

  private async onLine(raw: string): Promise<void> {
    const line = raw.trim();
    this.armed = false;
    if (!line || this.quitting) return;
    try {
      if (line.startsWith('/')) await runSlash(line, this);
      else await this.askLead(line);
    } catch (err) {
      this.print(err instanceof ReplUsageError ? err.message : `error: ${(err as Error).message}`);
    }
  }

  private async askLead(prompt: string): Promise<void> {
    this.turns++;
    try {
      await runAction(ACTIONS.askLead, replScope(this.rt), { prompt });
    } finally {
      this.turns--;
    }
  }

  /**
   * A turn the user asked for, or one mail started that is past its first step. The lead's
   * loop stays "busy" a moment after a turn's end (checking for mail); a Ctrl-C then is
   * meant for the idle prompt, not for a turn that is already over.
   */
  private leadWorking(): boolean {
    return this.turns > 0 || (this.rt.leadBusy() && this.rt.activity('lead').kind !== 'idle');
  }

  private interrupt(): void {
    if (this.quitting) {
      this.hurry.abort();
      return;
    }
    if (this.term.asking) {
      this.term.cancelQuestion();
      return;
    }
    if (this.leadWorking()) {
      this.rt.cancelLeadTurn();
      this.armed = false;
      this.print("^C: cancelled the lead's turn.");
      return;
    }
    if (this.armed) {
      void this.quit();
      return;
    }
    this.armed = true;
    this.term.clearInput();
    this.print('^C (press Ctrl-C again to quit, or type /quit)');
    this.term.showPrompt();
  }

  /**
   * The terminal closed or the process was told to end: no time to ask anyone. As a closing
   * VS Code window does, the agents stop here (their commands' process groups killed) and
   * keep their state, so the next session or window resumes them.
   */
  private terminate(signal: 'SIGTERM' | 'SIGHUP'): void {
    if (this.quitting) return;
    const code = 128 + (signal === 'SIGHUP' ? 1 : 15);
    this.quitting = (async () => {
      for (const s of this.subs.splice(0)) s.dispose();
      await this.rt.dispose();
      this.term.close();
    })().then(() => this.finished(code), () => this.finished(code));
  }

  /** Asks this host's teammates to shut down, stops those that do not in time, disposes. */
  quit(): Promise<void> {
    this.quitting ??= this.shutDown().then(
      // A script piping prompts in learns from the exit code that something failed.
      () => this.finished(this.errors ? 1 : 0),
      (err: Error) => {
        writeLine(this.opts.io.stderr, `agent-teams: ${err.message}`);
        this.finished(1);
      },
    );
    return this.quitting;
  }

  private async shutDown(): Promise<void> {
    const rt = this.rt;
    if (rt.leadBusy()) rt.cancelLeadTurn();
    const mine = (await rt.view.members())
      .filter((m) => m.status !== 'shutdown' && !['remote', 'stopped'].includes(rt.activity(m.name).kind))
      .map((m) => m.name);
    if (mine.length) {
      this.print(`Asking ${mine.join(', ')} to shut down…`);
      await Promise.all(mine.map((n) => rt.requestShutdown(n).catch((err: Error) => this.print(`error: ${err.message}`))));
      const end = Date.now() + QUIT_WAIT_MS;
      const isDown = async (n: string) => (await rt.view.member(n))?.status === 'shutdown';
      while (Date.now() < end && !this.hurry.signal.aborted) {
        if ((await Promise.all(mine.map(isDown))).every(Boolean)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const n of mine) {
        if (await isDown(n)) continue;
        this.print(`${n} did not shut down in time: stopping it.`);
        await rt.stopTeammate(n).catch((err: Error) => this.print(`error: ${err.message}`));
      }
    }
    for (const s of this.subs.splice(0)) s.dispose();
    await rt.dispose();
    if (this.errors) this.print(`${this.errors} error${this.errors === 1 ? '' : 's'} in this session (see above).`);
    this.print('Bye.');
    this.term.close();
  }
}

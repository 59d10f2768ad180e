// Opens the team session's team for the views and commands: turns the core's change
// notifications (from any process) into one debounced VS Code event, and keeps the context
// keys the views' welcome content depends on. Nothing is created in the workspace until a
// team exists there or a command writes to it.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FileKind, TeamChange, TeamSession, TeamView } from '../../core/session';
import { setContext } from './walkthrough';

/**
 * What changed: team files (`worktrees`: the worktree index or its log), or only what an
 * agent is doing right now (no file to re-read).
 */
export type HostChange = TeamChange | 'worktrees' | 'activity';

/** The files whose changes the views redraw on (transcript panels and the Changes view follow their own kinds). */
const HOST_FILES: FileKind[] = ['roster', 'inbox', 'requests', 'tasks', 'queue', 'worktrees'];

/** Coalescing window for bursts of file events; well under the 200 ms tree-update target. */
const DEBOUNCE_MS = 25;

export class TeamHost implements vscode.Disposable {
  /** What the views render (the session's read models). */
  readonly view: TeamView;
  readonly root: string;
  private readonly changed = new vscode.EventEmitter<ReadonlySet<HostChange>>();
  /** Fires with the kinds of state that changed (coalesced). */
  readonly onDidChange = this.changed.event;
  private pending = new Set<HostChange>();
  private timer: NodeJS.Timeout | undefined;
  private sub: { dispose(): void } | undefined;
  /** Waits for `.team` or `.tasks` to appear (the session's change feed, kind `layout`). */
  private rootWatcher: Promise<{ dispose(): void } | undefined> | undefined;
  private opening: Promise<void> | undefined;
  private disposed = false;
  private hasTeamKey: boolean | undefined;

  constructor(readonly session: TeamSession, private readonly log: vscode.LogOutputChannel) {
    this.view = session.view;
    this.root = session.root;
  }

  /** Subscribes at once when team files exist, else when they appear. */
  async start(): Promise<void> {
    if (await this.exists()) await this.open();
    else this.watchForTeam();
    await this.updateHasTeam();
    void setContext('agentTeams.ready', true);
  }

  /** Creates the team layout (for commands that write) and starts watching it. */
  async ensureTeam(): Promise<TeamView> {
    await this.open();
    return this.view;
  }

  private async exists(): Promise<boolean> {
    const found = await Promise.all(['.team', '.tasks'].map((d) => stat(join(this.root, d)).then(() => true, () => false)));
    return found.some(Boolean);
  }

  private watchForTeam(): void {
    this.rootWatcher = this.session.watchFiles(['layout'], () => {
      void this.open().then(() => this.fire(['roster', 'tasks', 'inbox', 'requests']));
    }).catch((err: unknown) => {
      this.log.warn(`cannot watch ${this.root} for a new team: ${String(err)}`);
      return undefined;
    });
  }

  private closeRootWatcher(): void {
    void this.rootWatcher?.then((w) => w?.dispose());
    this.rootWatcher = undefined;
  }

  private open(): Promise<void> {
    this.opening ??= (async () => {
      this.closeRootWatcher();
      await this.session.initTeam();
      // The session's one change feed: team state and the worktrees, by kind.
      const sub = await this.session.watchFiles(HOST_FILES, (e) => this.fire([e.kind as HostChange]));
      if (this.disposed) sub.dispose();
      else this.sub = sub;
    })();
    return this.opening;
  }

  /** Reports changes made in this window without waiting for the file watcher. */
  fire(kinds: Iterable<HostChange>): void {
    for (const k of kinds) this.pending.add(k);
    if (this.timer || this.disposed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const batch = this.pending;
      this.pending = new Set();
      if (batch.has('roster')) void this.updateHasTeam();
      this.changed.fire(batch);
    }, DEBOUNCE_MS);
  }

  /** A team exists once it has members or the lead has a conversation. */
  hasTeam(): Promise<boolean> {
    return this.session.hasTeam();
  }

  private async updateHasTeam(): Promise<void> {
    const has = await this.hasTeam();
    if (has === this.hasTeamKey) return;
    this.hasTeamKey = has;
    void setContext('agentTeams.hasTeam', has);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.closeRootWatcher();
    this.sub?.dispose();
    this.changed.dispose();
  }
}

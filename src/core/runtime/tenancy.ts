// Which agents this host runs, by lease (docs/file-formats.md, "Who runs what"): the lead
// unless another live host runs it, and the teammates whose leases this host took. Every
// heartbeat renews them first, then takes over what hosts that went away ran and resumes
// teammates nobody runs; an agent another host took is stood down here. Agents ask it
// before acting (AgentEnv.leases: holds, fencedOut); the runner (agent-runner.ts) builds
// the teammates it starts. The lease rules are in lease.ts, their roster writes in
// lease-keeper.ts.
import type { Member } from '../../shared/schemas';
import type { ProcessRegistry } from '../exec/process-group';
import type { Team } from '../team/team';
import type { WorktreeManager } from '../worktree/manager';
import type { LeaseCheck } from './agent-env';
import type { Lead } from './lead';
import type { LeaseKeeper } from './lease-keeper';
import { RemoteMembers } from './remote-members';
import { whyNotResumable } from './resumable';
import { RuntimeError } from './runner-options';
import type { Teammate } from './teammate';
import type { RuntimeEvent, RuntimeSettings } from './types';

export interface TenancyDeps {
  team: Team;
  keeper: LeaseKeeper;
  processes: ProcessRegistry;
  worktrees: WorktreeManager;
  emit(e: RuntimeEvent): void;
  settings(): RuntimeSettings;
  lead(): Lead;
  /** A teammate for `m`, fenced and restored, not started yet (the lease is already this host's). */
  make(m: Member): Promise<Teammate>;
  killOrphans(): Promise<void>;
  disposed(): boolean;
}

export class Tenancy implements LeaseCheck {
  /** Another live host runs the lead (its id); null while this host does. */
  leadRemote: string | null = null;
  readonly teammates = new Map<string, Teammate>();
  /** Members another live host runs, and those held back by maxTeammates. */
  readonly remote: RemoteMembers;

  constructor(private readonly d: TenancyDeps) {
    this.remote = new RemoteMembers((e) => d.emit(e), () => d.settings().maxTeammates);
  }

  /** Takes the lead's lease at start unless another live host holds it (leadRemote then says which). */
  async claimLead(): Promise<void> {
    // One lead per workspace: its conversation is one transcript and its mail one inbox.
    this.leadRemote = await this.d.keeper.claimLead();
  }

  /** Teammates being started here (between the lease and the running loop). */
  private starting = new Set<string>();

  /** Every heartbeat (LeaseKeeper: never two at once). */
  async beat(): Promise<void> {
    // Renew first: after a pause, what this host still holds is settled before anything else.
    await this.renewNow();
    await this.d.killOrphans();
    await this.adoptLead();
    await this.resumeTeammates();
  }

  private renewing: Promise<void> | null = null;
  /** Renews this host's leases now (one renewal at a time), yielding those another host took. */
  private renewNow(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null));
    return this.renewing;
  }

  /**
   * Before an agent acts (model call, tool call, delivery, transcript write): after a gap in
   * this host's clock (frozen, asleep, starved) the leases are renewed first, and an agent
   * another host took over meanwhile is stopped here instead of acting. See docs/file-formats.md.
   */
  async holds(agent: string): Promise<boolean> {
    if (this.d.disposed()) return false;
    if (this.d.keeper.clock.fresh()) return true;
    await this.renewNow();
    return agent === 'lead' ? !this.leadRemote : this.running(agent);
  }

  /** A write for `agent` was refused by its fence: whatever the roster says, `host` runs it now. */
  fencedOut(agent: string, host: string): void {
    if (agent === 'lead') this.leadTakenBy(host);
    else if (!this.d.disposed()) void this.yieldTo(agent, host);
  }

  /** Another host runs the lead now: stopped here (not "the user stopped this turn": that host carries it on). */
  private leadTakenBy(host: string): void {
    if (this.d.disposed() || this.leadRemote) return;
    this.leadRemote = host;
    this.d.lead().handOver();
    // Its commands too: the lead that runs there now carries the turn on (never two leads at work).
    void this.d.processes.killAll('lead');
    this.d.emit({ type: 'activity', agent: 'lead', activity: { kind: 'remote', host } });
    this.d.emit({ type: 'notice', level: 'warning', agent: 'lead', message: `The lead is now run by another window (host ${host}); stopped here.` });
  }

  private async renewOnce(): Promise<void> {
    const mine = [...this.teammates.keys()];
    const holdLead = !this.leadRemote;
    if (!mine.length && !holdLead) return this.d.keeper.clock.confirm();
    const r = await this.d.keeper.renew(mine, holdLead);
    if (!r) return;
    this.d.keeper.clock.confirm();
    const { lost, leadLostTo } = r;
    for (const { name, host } of lost) await this.yieldTo(name, host);
    if (leadLostTo) this.leadTakenBy(leadLostTo);
  }

  /** The other host that ran the lead went away: run it here, from its transcript as that host left it. */
  private async adoptLead(): Promise<void> {
    if (!this.leadRemote || this.d.disposed()) return;
    const foreign = await this.d.keeper.claimLead().catch(() => this.leadRemote);
    // Taken over meanwhile (takeOverLead): it runs here already.
    if (!this.leadRemote) return;
    if (foreign) {
      this.leadRemote = foreign;
      return;
    }
    this.leadRemote = null;
    await this.runLeadHere();
  }

  /**
   * Take Over Lead: the lead runs here from now, whoever held it — the user says the window
   * that runs it is gone, though its backend still renews the lease. That host stops its lead
   * at its next heartbeat (leadTakenBy); until then the fence opened here refuses its writes.
   * Returns the host it was taken from (null: it ran here already, or nobody held it).
   */
  async takeOverLead(): Promise<string | null> {
    if (!this.leadRemote || this.d.disposed()) return null;
    const from = await this.d.keeper.takeLead();
    // Adopted meanwhile (adoptLead): it runs here already.
    if (!this.leadRemote) return from;
    this.leadRemote = null;
    await this.runLeadHere();
    return from;
  }

  /** The lead being started here (between its lease and its restored conversation). */
  private arriving: Promise<void> | null = null;

  /** Resolves once a lead being taken on here has its conversation: asking it earlier would start a new one. */
  leadArrived(): Promise<void> {
    return this.arriving ?? Promise.resolve();
  }

  /** Starts the lead here (its lease just taken): fenced first, then its conversation as the last host left it. */
  private async runLeadHere(): Promise<void> {
    const lead = this.d.lead();
    this.arriving = (async () => {
      await lead.fence(this.d.keeper.hostId);
      await lead.restore();
    })();
    try {
      await this.arriving;
    } finally {
      this.arriving = null;
    }
    this.d.emit({ type: 'activity', agent: 'lead', activity: lead.activity });
    lead.resumeTurn();
    lead.onMail();
  }

  /** Stops running `name` here without touching its record: another host runs it now. */
  private async yieldTo(name: string, host: string): Promise<void> {
    const t = this.teammates.get(name);
    if (!t) return;
    this.teammates.delete(name);
    this.remote.mark(name, host, true);
    t.suspend();
    await this.d.processes.killAll(name);
    this.d.emit({ type: 'activity', agent: name, activity: { kind: 'remote', host } });
    this.d.emit({ type: 'notice', level: 'warning', agent: name, message: `${name} is now run by another window (host ${host}); stopped here.` });
  }

  /**
   * At start and every heartbeat, over the whole roster: teammates other hosts run (spawned
   * there since this one started included) are shown as remote, and those no live host runs
   * (their host went away, or this one just started) are run here.
   */
  async resumeTeammates(): Promise<void> {
    const members = await this.d.team.roster.list().catch(() => []);
    const elsewhere = members.filter((m) => m.status !== 'shutdown' && this.d.keeper.foreign(m)).length;
    for (const m of members) {
      // Ours (running, or being set up by a spawn right now) or gone: nothing to take.
      if (this.d.disposed() || m.status === 'shutdown' || this.running(m.name) || m.host?.id === this.d.keeper.hostId) continue;
      const foreign = this.d.keeper.foreign(m);
      if (foreign) {
        this.remote.mark(m.name, foreign);
        continue;
      }
      // No more than maxTeammates run at once (a cloned roster of 1,000 must not start 1,000).
      if (this.teammates.size + this.starting.size + elsewhere >= this.d.settings().maxTeammates) {
        this.remote.holdBack(m.name);
        continue;
      }
      const r = await this.d.keeper.claim(m.name).catch(() => undefined);
      if (!r) continue;
      if ('foreign' in r) {
        this.remote.mark(m.name, r.foreign);
        continue;
      }
      this.remote.forget(m.name);
      // A spawn here may have started it while the claim was under way.
      if (!this.running(m.name)) await this.resume(r.member);
    }
  }

  /**
   * Continues a member's conversation, unless its worktree is not its own or is gone: then it
   * is marked shut down, its tasks go back to pending, and the user is told.
   */
  private async resume(m: Member): Promise<void> {
    const why = await whyNotResumable(m, this.d.worktrees.pathOf(m.name), this.d.team.root);
    if (why) {
      await this.d.team.retireMember(m.name);
      this.d.emit({ type: 'notice', level: why.level, agent: m.name, message: why.message });
      return;
    }
    await this.run(m, null, m.status === 'idle');
  }

  /** Runs here now, or is being started here. */
  running(name: string): boolean {
    return this.teammates.has(name) || this.starting.has(name);
  }

  async run(m: Member, prompt: string | null, resumeIdle: boolean): Promise<Teammate> {
    if (this.running(m.name)) throw new RuntimeError(`${m.name} already runs here`);
    this.starting.add(m.name);
    try {
      const t = await this.d.make(m);
      this.teammates.set(m.name, t);
      t.start(prompt, resumeIdle);
      void t.done.then(() => {
        if (this.teammates.get(m.name) === t) this.teammates.delete(m.name);
      });
      return t;
    } finally {
      this.starting.delete(m.name);
    }
  }
}

// One agent's work phase: model call → tools → mail → model call …, until the model ends
// its turn, asks to idle or shut down, hits maxRounds, or is stopped. Mail that arrived
// during the round is delivered with the tool results, so a working agent hears from its
// team between tool calls. Shared by the lead and the teammates.
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentFs } from '../exec/agent-fs';
import { withMcpTools } from '../mcp/agent-tools';
import type { AgentEnv } from './agent-env';
import { isMcpToolName } from '../mcp/tool-names';
import { isAbortError, ModelError, redact, type ModelClient, type ModelMessage, type ModelStatus, type SendResult } from '../model';
import { cutMiddle, mailCutNote, maxMessageChars } from './context-cut';
import { formatMail, type Identity } from './prompts';
import { mergeConsecutive, promptTooLong } from './conversation';
import { phaseSystem } from './instructions';
import { RepeatGuard, SAME_FAILURE_LIMIT } from './repeat-guard';
import { spawnedNames } from './phase-report';
import type { AgentHandle, ToolHost, ToolSet } from './tools';
import { FencedError } from '../team/fences';
import { withToolHooks } from '../hooks/tool-hooks';
import { phaseWithStopHooks, type StopEvent } from '../hooks/stop-gate';
import { bounded } from '../../shared/transcript-items';
import { LIVE_RESULT_CHARS, Transcript } from './transcript';
import type { Activity } from './types';

export type { AgentEnv } from './agent-env';

export type PhaseEnd = 'end_turn' | 'idle' | 'shutdown' | 'max_rounds' | 'stopped' | 'error';

/** A tool call as the model made it. */
export interface ToolCall {
  name: string;
  input: unknown;
}

type Block = Anthropic.ContentBlockParam;

const CUT_OFF = 'Not run: your reply reached the output token limit (max_tokens) before this call was complete. '
  + 'Make the call smaller, e.g. write a large file in several parts.';

export { mergeConsecutive } from './conversation';

export abstract class Agent implements AgentHandle {
  abstract readonly kind: 'lead' | 'teammate';
  messages: ModelMessage[] = [];
  fs: AgentFs;
  readonly transcript: Transcript;
  protected inboxCursor = 0;
  private pendingCursor: number | null = null;
  private endReason: 'shutdown' | 'idle' | null = null;
  private controller = new AbortController();
  protected stopped = false;
  private current: Activity = { kind: 'idle' };
  model!: ModelClient;

  /** Where the agent works when no task binds it to a worktree. */
  readonly homeDir: string;

  constructor(
    readonly identity: Identity,
    public cwd: string,
    protected readonly env: AgentEnv,
    protected readonly tools: ToolSet,
    /** Changes only between work phases (the lead's list of agent definitions), for the prompt cache. */
    public system: string,
  ) {
    this.homeDir = cwd;
    this.fs = env.workspaceFs(identity.name, cwd);
    this.transcript = new Transcript(env.team.paths.transcript(identity.name), (entry) => env.emit({ type: 'transcript', agent: identity.name, entry }));
  }

  /** Re-roots file tools and bash (a task bound to a worktree). */
  setWorkdir(dir: string): void {
    this.nextWorkdir = null;
    if (dir === this.cwd) return;
    this.cwd = dir;
    this.fs = this.env.workspaceFs(this.identity.name, dir);
  }

  /** Where it moves once the current reply's calls have run (a completed worktree task). */
  private nextWorkdir: string | null = null;
  moveAfterReply = (dir: string): void => void (this.nextWorkdir = dir);
  private applyMove = (): void => void (this.nextWorkdir !== null && this.setWorkdir(this.nextWorkdir));
  spawnsInReply: ReadonlySet<string> = new Set();

  get name(): string {
    return this.identity.name;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get activity(): Activity {
    return this.current;
  }

  /** Set by a PreToolUse hook's allow for the call being run (src/core/hooks/tool-hooks.ts). */
  hookApproved = false;

  /** The tools its agent definition lists (null: all); MCP tools outside it are not offered. */
  allowedTools: readonly string[] | null = null;

  setActivity(a: Activity): void {
    this.current = a;
    // Kept in the transcript for its readers (what happened while nobody watched).
    if (a.kind === 'retrying') void this.transcript.note({ type: 'notice', what: 'retry', level: 'warning', text: `Retrying in ${Math.round(a.inMs / 1000)} s (attempt ${a.attempt}): ${a.reason}` });
    else if (a.kind === 'paused') void this.transcript.note({ type: 'notice', what: 'pause', level: 'warning', text: `Paused: ${a.reason}` });
    else if (a.kind === 'error') void this.transcript.note({ type: 'notice', what: 'error', level: 'error', text: a.message });
    this.env.emit({ type: 'activity', agent: this.name, activity: a });
  }

  onModelStatus = (s: ModelStatus): void => {
    if (s.state === 'retrying') this.setActivity({ kind: 'retrying', inMs: s.inMs, reason: s.reason, attempt: s.attempt });
    else this.setActivity({ kind: s.state });
  };

  async planGateOpen(): Promise<boolean> {
    return true;
  }

  /** Why `tool` may not change the workspace now (plan mode), or null. */
  async planRefusal(_tool: string): Promise<string | null> {
    return null;
  }

  endAfterRound(reason: 'shutdown' | 'idle'): void {
    if (this.endReason !== 'shutdown') this.endReason = reason;
  }

  noteInboxRead(cursor: number): void {
    this.pendingCursor = Math.max(this.pendingCursor ?? 0, cursor);
  }

  inboxPosition(): number {
    return Math.max(this.inboxCursor, this.pendingCursor ?? 0);
  }

  /** Force stop: aborts the model request and the running tool. */
  stop(): void {
    this.stopped = true;
    this.controller.abort();
  }

  /** Lets a stopped (cancelled) agent run again: the lead after a cancelled turn. */
  protected rearm(): void {
    this.stopped = false;
    if (this.controller.signal.aborted) this.controller = new AbortController();
  }

  /**
   * This host takes the agent on (its lease just taken): a new fence, so that a host that ran
   * it before and wakes from a pause can no longer write its transcript or move its cursor
   * (src/core/team/fences.ts). Call before restore().
   */
  async fence(hostId: string): Promise<void> {
    const fences = this.env.team.fences;
    const epoch = await fences.open(this.name, hostId);
    this.transcript.fence = { epoch, check: () => fences.check(this.name, epoch) };
  }

  async restore(): Promise<void> {
    const team = this.env.team;
    // Lines a host wrote after losing the agent to a later fence are not part of it.
    const r = await this.transcript.restore(await team.fences.list(this.name));
    this.messages = r.messages;
    this.pendingCursor = null;
    this.inboxCursor = Math.max(r.inboxCursor, await team.mailbox.cursor(this.name));
    // It carries on in the worktree of the task it holds (docs/file-formats.md, "Tasks").
    const [held] = await team.tasks.select((t) => t.owner === this.name && t.status === 'in_progress' && !!t.worktree);
    if (held?.worktree) this.setWorkdir(await this.env.workdirs.dir(held.worktree).catch(() => this.cwd));
    // A crash after a tool call was requested but before its result was stored.
    const last = this.messages[this.messages.length - 1];
    if (last?.role === 'assistant' && Array.isArray(last.content)) {
      const uses = last.content.filter((b) => b.type === 'tool_use');
      if (uses.length) {
        await this.push({
          role: 'user',
          content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: (u as { id: string }).id, content: 'Interrupted: the host restarted before this tool finished. Check its effects before retrying.', is_error: true })),
        });
      }
    }
  }

  /** Appends a message to the conversation and the transcript (with any mail cursor). */
  async push(message: ModelMessage, inboxCursor?: number): Promise<void> {
    // A host that lost this agent during a pause appends nothing more to its transcript.
    if (!(await this.leaseHeld())) return;
    const cursor = inboxCursor ?? this.pendingCursor ?? undefined;
    if (!(await this.fenced(() => this.transcript.append(message, cursor)))) return;
    this.messages.push(message);
    if (cursor !== undefined) {
      this.inboxCursor = Math.max(this.inboxCursor, cursor);
      this.pendingCursor = null;
      await this.fenced(() => this.env.team.mailbox.ack(this.name, this.inboxCursor, this.transcript.fence?.epoch));
    }
  }

  async replaceConversation(messages: ModelMessage[]): Promise<void> {
    if (!(await this.leaseHeld())) return;
    if (await this.fenced(() => this.transcript.reset(messages, this.inboxCursor))) this.messages = messages;
  }

  /** Runs a fenced write; false (and the agent handed over) when another host fenced it meanwhile. */
  private async fenced(write: () => Promise<void>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (err) {
      if (!(err instanceof FencedError)) throw err;
      this.env.emit({ type: 'notice', level: 'warning', agent: this.name, message: `${err.message}; stopped here.` });
      this.loseLease();
      this.env.leases.fencedOut(this.name, err.by.host);
      return false;
    }
  }

  /** Another host runs this agent now: stop without retiring it (Teammate: suspend; Lead: hand over). */
  protected loseLease(): void {
    this.stop();
  }

  /** Unread mail as text blocks, and the cursor that consumes it. */
  async takeMail(): Promise<{ blocks: Block[]; cursor: number; count: number; wakes: boolean }> {
    const d = await this.env.team.mailbox.unread(this.name, this.inboxPosition());
    // A message larger than the context could hold is cut with a note; the inbox keeps it whole.
    const max = maxMessageChars(this.env.settings().compactAtTokens);
    const blocks = d.messages.map((m): Block => ({ type: 'text', text: cutMiddle(formatMail(m), max, mailCutNote(this.name)) }));
    const wakes = d.messages.some((m) => !(m as { notice?: boolean }).notice);
    return { blocks, cursor: d.cursor, count: d.messages.length, wakes };
  }

  /** False (and stopped) once another host runs this agent; see AgentEnv.leases. */
  private async leaseHeld(): Promise<boolean> {
    if (await this.env.leases.holds(this.name)) return true;
    this.loseLease();
    return false;
  }

  private readonly repeats = new RepeatGuard();

  private phaseFailed(message: string): 'error' {
    this.setActivity({ kind: 'error', message });
    this.env.emit({ type: 'notice', level: 'error', agent: this.name, message });
    return 'error';
  }

  /** runPhase, carried on while a Stop / SubagentStop / TeammateIdle hook says not done (docs/hooks.md). */
  protected stopGated(events: readonly StopEvent[], maxRounds: number): Promise<PhaseEnd> {
    return phaseWithStopHooks({
      agent: this, hooks: this.env.hooks, events, runPhase: () => this.runPhase(maxRounds),
      carryOn: (text) => this.push({ role: 'user', content: text }),
      warn: (message) => this.env.emit({ type: 'notice', level: 'warning', agent: this.name, message }),
    });
  }

  /** Runs until the turn ends. The conversation must end with a user message. */
  async runPhase(maxRounds: number): Promise<PhaseEnd> {
    this.endReason = null;
    let forceCompact = false;
    // Project instructions are read once per phase: the prompt prefix stays cached within it.
    const system = await phaseSystem(this.system, this.env.team.paths.root);
    this.applyMove();
    this.repeats.reset();
    for (let round = 0; ; round++) {
      if (this.stopped) return 'stopped';
      if (round >= maxRounds) return 'max_rounds';
      let result: SendResult;
      let mcp: ToolSet;
      try {
        await this.env.budget.gate(this.name, this.signal);
        const compacted = await this.env.compaction.maybeCompact(this, this.messages, forceCompact);
        if (compacted) await this.replaceConversation(compacted);
        // The first agent to work starts the MCP servers; later calls find them settled.
        await this.env.mcp.ensureStarted(this.signal);
        mcp = this.env.mcpTools.setFor(this.allowedTools);
        if (!(await this.leaseHeld())) return 'stopped';
        this.setActivity({ kind: 'requesting' });
        result = await this.model.send({
          system, tools: withMcpTools(this.tools.definitions, mcp.definitions), messages: mergeConsecutive(this.messages), signal: this.signal,
          onText: (text, attempt) => {
            this.env.emit({ type: 'text_delta', agent: this.name, text, attempt });
            this.transcript.streamText(text, attempt);
          },
        });
        this.transcript.endStream();
      } catch (err) {
        this.transcript.endStream();
        if (this.stopped || isAbortError(err)) return 'stopped';
        // Our estimate of the context was short: summarise now and ask again, once.
        if (!forceCompact && promptTooLong(err)) {
          forceCompact = true;
          round--;
          continue;
        }
        if (err instanceof ModelError && err.kind === 'auth') this.env.keys.noteRejected(this.model.provider ?? 'anthropic');
        return this.phaseFailed(`${this.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
      forceCompact = false;
      await this.env.budget.record(this.name, result);
      const u = result.usage;
      await this.transcript.note({ type: 'usage', input: u.input, output: u.output, cache_read: u.cacheRead, cache_write: u.cacheWrite });
      // An empty reply is not kept: the API refuses an empty assistant message in a conversation.
      if (result.content.length) await this.push({ role: 'assistant', content: result.content as Block[] });
      for (const b of result.content) if (b.type === 'text' && b.text.trim()) this.env.emit({ type: 'text', agent: this.name, text: b.text });
      const uses = result.content.filter((b) => b.type === 'tool_use');
      if (uses.length === 0) {
        this.setActivity({ kind: 'idle' });
        return 'end_turn';
      }
      // Cut off at max_tokens, the last block's input is whatever part of its JSON had arrived.
      const cut = result.stopReason === 'max_tokens' ? result.content.at(-1) : undefined;
      const blocks: Block[] = [];
      this.spawnsInReply = spawnedNames(uses);
      // The whole reply's calls first (the lead's spawns are proposed to the user as one team).
      if (!this.stopped) await this.tools.beforeReply(uses.flatMap((u) => (u.type === 'tool_use' && u !== cut ? [{ name: u.name, input: u.input }] : [])), this, this.env);
      for (const u of uses) {
        if (u.type !== 'tool_use') continue;
        if (!this.stopped) await this.leaseHeld();
        if (this.stopped) {
          blocks.push({ type: 'tool_result', tool_use_id: u.id, content: 'Stopped by the user.', is_error: true });
          continue;
        }
        // An approved shutdown ends the teammate: what it asked for after it in the same
        // reply must not run (docs/file-formats.md, "Requests").
        if (this.endReason === 'shutdown') {
          blocks.push({ type: 'tool_result', tool_use_id: u.id, content: 'Not run: you approved your shutdown earlier in this reply.', is_error: true });
          continue;
        }
        if (u === cut) {
          blocks.push({ type: 'tool_result', tool_use_id: u.id, content: CUT_OFF, is_error: true });
          continue;
        }
        this.setActivity({ kind: 'tool', tool: u.name });
        this.env.emit({ type: 'tool_start', agent: this.name, id: u.id, tool: u.name, input: u.input });
        // An MCP tool withdrawn since this request was sent (its server failed) says so.
        const set = mcp.has(u.name) ? mcp : isMcpToolName(u.name) ? null : this.tools;
        const r = set ? await withToolHooks(this, this.env, u, () => set.run(u.name, u.input, this, this.env)) : { text: `${u.name} is not available: its MCP server is not running, or it is not among your tools.`, isError: true };
        // Whatever a tool turned up (a printed environment, a .env file), the key stays out of
        // the transcript and the model's context.
        const text = redact(r.text) + (this.repeats.note(u.name, u.input, r.isError, r.text) ?? '');
        this.env.emit({ type: 'tool', agent: this.name, tool: u.name, input: u.input, result: text, isError: r.isError, id: u.id });
        void this.transcript.note({ type: 'tool_result', id: u.id, tool: u.name, is_error: r.isError, text: bounded(text, LIVE_RESULT_CHARS), chars: text.length });
        blocks.push({ type: 'tool_result', tool_use_id: u.id, content: text, ...(r.isError ? { is_error: true } : {}) });
      }
      // A worktree task completed in this reply: its later calls ran there; the next reply works at home.
      this.applyMove();
      const mail = this.stopped ? null : await this.takeMail();
      await this.push({ role: 'user', content: [...blocks, ...(mail?.blocks ?? [])] }, mail?.count ? mail.cursor : undefined);
      if (this.stopped) return 'stopped';
      if (this.repeats.stuck) return this.phaseFailed(`${this.name} repeated a failing call ${SAME_FAILURE_LIMIT} times; its turn was ended.`);
      // Mail delivered with the last tool results must be seen before going idle.
      if (this.endReason === 'idle' && mail?.count) this.endReason = null;
      if (this.endReason) {
        this.setActivity({ kind: 'idle' });
        return this.endReason;
      }
    }
  }
}

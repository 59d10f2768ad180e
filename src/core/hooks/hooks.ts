// The hooks of one host (docs/hooks.md): loaded from the settings files of a trusted folder,
// matched to an event (and a tool name), run in parallel with the event's JSON on stdin, and
// their answers folded into one outcome: go on, block with feedback, or (PreToolUse) a
// permission decision. Every run is written to the agent's transcript; a hook that fails
// (not found, crashed, timed out, printed bad JSON) is reported to the user once per cause
// and the work goes on — a failing hook never blocks, and nothing here retries one.
import { CLAUDE_TOOL_NAMES } from '../roles/agent-definitions';
import { reportProblem } from '../util/problems';
import { loadHookConfig, type HookConfig, type HookEvent, type HookSpec } from './config';
import type { SpawnPlan } from '../exec/shell';
import { runHookProcess, type HookProcessResult } from './exec';

export type PermissionHint = 'allow' | 'deny' | 'ask';

/** What the hooks of one event said, together. */
export interface HookOutcome {
  /** A hook exited 2 or answered `decision: "block"`. */
  blocked: boolean;
  /** Why (exit 2: its stderr; a JSON decision: its reason), for the agent. */
  feedback: string;
  /** PreToolUse: the strictest `permissionDecision` (deny > ask > allow). */
  permission?: PermissionHint;
  permissionReason?: string;
  /** `additionalContext`, or plain stdout of UserPromptSubmit / SessionStart hooks. */
  context: string;
  /** How many hooks ran. */
  ran: number;
}

/** One hook run as the transcript keeps it (docs/file-formats.md, "Transcripts"). */
export interface HookRunRecord {
  type: 'hook';
  event: HookEvent;
  command: string;
  exit_code: number | null;
  ms: number;
  timed_out: boolean;
  blocked: boolean;
  output: string;
}

/** The agent an event is about. */
export interface HookAgent {
  name: string;
  cwd: string;
  transcriptPath: string;
  /** Writes the run into the agent's transcript. */
  note?(run: HookRunRecord): unknown;
}

export interface HooksOptions {
  root: string;
  /** session_id in the hooks' input: one per host run. */
  sessionId: string;
  /** False: the folder is not trusted, no hook is loaded or run (docs/hooks.md, "Trust"). */
  trusted: boolean;
  /** A hook problem the user should see (not found, timed out, bad JSON). */
  warn(message: string, agent?: string): void;
  /**
   * Where a hook's command runs: the command sandbox's plan for `agent` (docs/hooks.md, "Where
   * hooks run"), or why it may not run. A hook is the user's, but what it runs — a script, a
   * package.json script — is in the folder agents write.
   */
  plan?(agent: string, cwd: string, command: string): Promise<SpawnPlan | { refused: string }>;
}

const NONE: HookOutcome = { blocked: false, feedback: '', context: '', ran: 0 };
const OUTPUT_CHARS = 2000;
const RANK: Record<PermissionHint, number> = { allow: 1, ask: 2, deny: 3 };
/** Our tool names under Claude Code's (bash → Bash): the first Claude name of each. */
const CLAUDE_NAME: Record<string, string> = {};
for (const [claude, ours] of Object.entries(CLAUDE_TOOL_NAMES)) CLAUDE_NAME[ours] ??= claude;

/** Claude Code's name of one of our tools, or the name itself. */
export function claudeToolName(tool: string): string {
  return CLAUDE_NAME[tool] ?? tool;
}

/** A matcher (empty: all) against any of `names`; a regular expression, anchored at both ends. */
export function matcherMatches(matcher: string, names: readonly string[]): boolean {
  if (!matcher) return true;
  const re = new RegExp(`^(?:${matcher})$`);
  return names.some((n) => re.test(n));
}

export class Hooks {
  private config: HookConfig = { hooks: [], problems: [] };
  private readonly reported = new Set<string>();
  team = '';

  constructor(private readonly opts: HooksOptions) {}

  /** Reads the settings files again (a trusted folder only); their problems are reported once each. */
  async load(): Promise<HookConfig> {
    if (!this.opts.trusted) return this.config;
    this.config = await loadHookConfig(this.opts.root);
    for (const p of this.config.problems) reportProblem(p);
    return this.config;
  }

  list(): readonly HookSpec[] {
    return this.config.hooks;
  }

  /** Whether any hook listens to `event` (cheap: callers skip building the input when not). */
  has(event: HookEvent): boolean {
    return this.config.hooks.some((h) => h.event === event);
  }

  /**
   * Runs the hooks of `event` whose matcher fits one of `matchOn` (none given: all of them),
   * in parallel, with Claude Code's input fields plus ours (`fields` adds the event's own).
   */
  async run(event: HookEvent, agent: HookAgent, fields: Record<string, unknown>, matchOn?: readonly string[]): Promise<HookOutcome> {
    const specs = this.config.hooks.filter((h) => h.event === event && (!matchOn || matcherMatches(h.matcher, matchOn)));
    if (!specs.length) return NONE;
    const input = JSON.stringify({
      session_id: this.opts.sessionId, transcript_path: agent.transcriptPath, cwd: agent.cwd, hook_event_name: event,
      agent_name: agent.name, team: this.team, ...fields,
    });
    const env = { ...process.env, CLAUDE_PROJECT_DIR: this.opts.root, AGENT_TEAMS_AGENT: agent.name };
    const results = await Promise.all(specs.map(async (spec) => {
      const plan = await this.opts.plan?.(agent.name, this.opts.root, spec.command);
      if (plan && 'refused' in plan) {
        return this.read(spec, { exitCode: null, stdout: '', stderr: '', timedOut: false, ms: 0, error: `not run: ${plan.refused}` }, agent);
      }
      const r = await runHookProcess(spec.command, input, { cwd: this.opts.root, timeoutMs: spec.timeoutSec * 1000, env, plan });
      return this.read(spec, r, agent);
    }));
    const out: HookOutcome = { ...NONE, ran: specs.length };
    const feedback: string[] = [];
    const context: string[] = [];
    const reasons: string[] = [];
    for (const r of results) {
      if (r.blocked) out.blocked = true;
      if (r.feedback) feedback.push(r.feedback);
      if (r.context) context.push(r.context);
      if (r.permission && (!out.permission || RANK[r.permission] > RANK[out.permission])) out.permission = r.permission;
      if (r.permissionReason) reasons.push(r.permissionReason);
    }
    out.feedback = feedback.join('\n');
    out.context = context.join('\n');
    if (reasons.length) out.permissionReason = reasons.join('\n');
    return out;
  }

  /** One run's answer; failures are reported (once per hook and cause) and count as "go on". */
  private read(spec: HookSpec, r: HookProcessResult, agent: HookAgent): HookOutcome {
    const one: HookOutcome = { ...NONE, ran: 1 };
    let failure: string | null = null;
    if (r.error) failure = `could not be started: ${r.error}`;
    else if (r.timedOut) failure = `timed out after ${spec.timeoutSec} s and was killed`;
    else if (r.exitCode === 2) {
      one.blocked = true;
      one.feedback = r.stderr.trim() || `blocked by the ${spec.event} hook \`${spec.command}\` (it gave no reason)`;
    } else if (r.exitCode === 127) failure = `command not found (exit 127)${r.stderr.trim() ? `: ${r.stderr.trim().split('\n')[0]}` : ''}`;
    else if (r.exitCode !== 0) failure = r.exitCode === null ? 'was killed by a signal' : `failed with exit code ${r.exitCode}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n')[0]}` : ''}`;
    else failure = this.readJson(spec, r.stdout, one);
    if (failure) this.warnOnce(spec, failure, agent.name);
    const said = [r.stderr.trim(), r.stdout.trim()].filter(Boolean).join('\n');
    void agent.note?.({
      type: 'hook', event: spec.event, command: spec.command, exit_code: r.exitCode, ms: r.ms, timed_out: r.timedOut,
      blocked: one.blocked, output: said.length > OUTPUT_CHARS ? `${said.slice(0, OUTPUT_CHARS)}…` : said,
    });
    return one;
  }

  /** Exit 0: stdout may be Claude Code's JSON answer; otherwise plain text (context for prompt events). */
  private readJson(spec: HookSpec, stdout: string, one: HookOutcome): string | null {
    const text = stdout.trim();
    if (!text.startsWith('{')) {
      if (spec.event === 'UserPromptSubmit' || spec.event === 'SessionStart') one.context = text;
      return null;
    }
    let j: Record<string, unknown>;
    try {
      const v = JSON.parse(text) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      j = v as Record<string, unknown>;
    } catch (e) {
      return `printed output that starts like JSON but is not valid JSON (${(e as Error).message}); read as plain text`;
    }
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const specific = (j.hookSpecificOutput && typeof j.hookSpecificOutput === 'object' ? j.hookSpecificOutput : {}) as Record<string, unknown>;
    const reason = str(j.reason);
    if (j.decision === 'block') {
      one.blocked = true;
      one.feedback = reason || `blocked by the ${spec.event} hook \`${spec.command}\``;
    }
    one.context = str(specific.additionalContext);
    if (spec.event !== 'PreToolUse') return null;
    const p = specific.permissionDecision ?? (j.decision === 'approve' ? 'allow' : j.decision === 'block' ? 'deny' : undefined);
    if (p === 'allow' || p === 'deny' || p === 'ask') {
      one.permission = p;
      one.permissionReason = str(specific.permissionDecisionReason) || reason || undefined;
    } else if (p !== undefined) {
      return `answered permissionDecision ${JSON.stringify(p)} (expected allow, deny or ask); ignored`;
    }
    return null;
  }

  private warnOnce(spec: HookSpec, failure: string, agent: string): void {
    // The cause, not its details (a stderr line may differ each time): one report per kind.
    const key = `${spec.source}\u0000${spec.at}\u0000${failure.split(/[:(]/)[0]}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.opts.warn(`The ${spec.event} hook \`${spec.command}\` (${spec.source}, ${spec.at}) ${failure}. Work goes on without it.`, agent);
  }
}

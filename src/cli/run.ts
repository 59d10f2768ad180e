// `agent-teams run <prompt…|->` / `-p <prompt>`: a headless team run for scripts and CI
// (docs/headless.md). Spawns the `--with` teammates, gives the lead the prompt, waits until
// the team is at rest — the lead between turns, no teammate working, no merge being tested —
// (or `--timeout`), stops the team and exits 0 when the lead finished without an error and
// nothing was left blocked (a task pending, a plan unanswered, a merge failed: listed as
// `blocked`), 1 otherwise, 2 on bad usage. Nothing is
// asked: what would ask is denied and reported. Every session flag applies.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { text as readAll } from 'node:stream/consumers';
import { ACTIONS, assertTeammateName, runAction, type RuntimeEvent, sessionScope, TeamSession } from '../core/session';
import { CliError, nonNegative, oneOf, stringList, stringOpt, UsageError } from './args';
import type { CommandContext } from './context';
import { HeadlessApprover } from './headless-approver';
import { writeLine } from './io';
import { runReport } from './run-report';
import { modelFactory } from './session';
import { sessionSettings, withTeamSettings } from './settings';
import { folderTrust, hooksTrusted, trustFlag } from './trust';
import { restText } from './write-commands';

type Format = 'text' | 'json' | 'stream-json';
/** The team counts as done once nobody has worked for this long (a result mail may be waking the lead). */
const QUIET_MS = 400;
const POLL_MS = 100;

async function promptOf(ctx: CommandContext): Promise<string> {
  const p = stringOpt(ctx.opts, 'prompt');
  const file = stringOpt(ctx.opts, 'prompt-file');
  if ([p !== undefined, file !== undefined, ctx.args.length > 0].filter(Boolean).length > 1) {
    throw new UsageError('give the prompt one way: as words, with -p, or with --prompt-file', ctx.usage);
  }
  let text: string;
  if (file !== undefined) {
    text = await readFile(resolve(ctx.io.cwd, file), 'utf8').catch((e: Error) => {
      throw new CliError(`cannot read the prompt file ${file}: ${e.message}`);
    });
  } else if (p === '-') {
    text = await readAll(ctx.io.stdin).catch((e: Error) => {
      throw new CliError(`cannot read the prompt from stdin: ${e.message}`);
    });
  } else if (p !== undefined) text = p;
  else return restText(ctx, 0, 'prompt (words, -p <prompt>, or - to read stdin)').catch((e: Error) => {
    throw e instanceof UsageError ? e : new CliError(`cannot read the prompt from stdin: ${e.message}`);
  });
  if (!text.trim()) throw new UsageError('the prompt is empty', ctx.usage);
  return text;
}

/** `--with name[:agent_type]`, checked before anything starts. */
function teammatesOf(ctx: CommandContext): Array<{ name: string; agent_type: string | null }> {
  return stringList(ctx.opts, 'with').map((w) => {
    const [name, type] = w.split(':', 2) as [string, string | undefined];
    try {
      return { name: assertTeammateName(name), agent_type: type?.trim() || null };
    } catch (e) {
      throw new UsageError(`--with ${JSON.stringify(w)}: ${(e as Error).message}`, ctx.usage);
    }
  });
}

export async function runCommand(ctx: CommandContext): Promise<number> {
  const format = oneOf<Format>(stringOpt(ctx.opts, 'output-format') ?? 'text', ['text', 'json', 'stream-json'], '--output-format');
  const timeoutRaw = stringOpt(ctx.opts, 'timeout');
  const timeoutS = timeoutRaw === undefined ? 0 : nonNegative(timeoutRaw, '--timeout');
  // The folder's own settings, hooks and MCP servers count only once the user trusted them (trust.ts).
  const trust = await folderTrust(ctx.io, ctx.root, { trust: trustFlag(ctx.opts) });
  const settings = trust['.team/settings.json'] ? await withTeamSettings(ctx.root, sessionSettings(ctx.opts), ctx.opts) : sessionSettings(ctx.opts);
  // Nobody is there to approve a plan: the lead does, unless --plan-approval says otherwise.
  if (stringOpt(ctx.opts, 'plan-approval') === undefined) settings.planApproval = 'lead';
  const withs = teammatesOf(ctx);
  const prompt = await promptOf(ctx);
  const models = modelFactory(ctx.io, settings.model);
  if (!models) return 1;
  const started = Date.now();
  const io = ctx.io;
  const line = (v: unknown) => io.stdout.write(`${JSON.stringify(v)}\n`);
  const errors: string[] = [];
  let leadFailed = false;
  let result = '';
  /** What the team left undone at rest (a task pending, a plan unanswered, a merge failed): exit 1. */
  let blocked: string[] = [];
  const approver = new HeadlessApprover((d) => {
    const msg = `denied (nobody to ask in a headless run): ${d.agent} wanted to ${d.what}${d.reason ? ` — ${d.reason}` : ''}`;
    if (format === 'stream-json') line({ type: 'denied', ...d });
    else writeLine(io.stderr, `agent-teams: ${msg}`);
  });
  let rt: TeamSession;
  try {
    rt = await TeamSession.start({
      root: ctx.root, settings, hostId: `cli-run-${process.pid}-${randomBytes(2).toString('hex')}`,
      agents: { models, approver, raiseBudget: 'Run again with a higher --token-budget.',
        mcp: { trusted: () => trust['.mcp.json'] }, hooks: { trusted: hooksTrusted(trust) } },
    });
  } catch (err) {
    writeLine(io.stderr, `agent-teams: could not start the team: ${(err as Error).message}`);
    return 1;
  }
  const onEvent = (e: RuntimeEvent) => {
    if (e.type === 'text' && e.agent === 'lead') result = e.text;
    if (e.type === 'notice' && e.level === 'error') {
      errors.push(e.message);
      if (e.agent === 'lead' || !e.agent) leadFailed = true;
    }
    if (e.type === 'notice' && e.level !== 'info' && format !== 'stream-json') writeLine(io.stderr, `agent-teams: ${e.message}`);
    if (format !== 'stream-json' || e.type === 'text_delta') return;
    if (e.type === 'transcript') {
      if (e.entry.kind === 'event' && e.entry.event.type === 'hook') line({ ...e.entry.event, agent: e.agent });
      return;
    }
    line(e);
  };
  const sub = rt.onEvent(onEvent);
  const deadline = new AbortController();
  const timer = timeoutS > 0 ? setTimeout(() => deadline.abort(), timeoutS * 1000) : undefined;
  const timedOut = new Promise<void>((r) => deadline.signal.addEventListener('abort', () => r(), { once: true }));
  try {
    const scope = sessionScope(rt);
    for (const w of withs) {
      await runAction(ACTIONS.spawn, scope, {
        name: w.name, role: w.agent_type ?? 'teammate', agent_type: w.agent_type,
        // --container: every --with teammate in a container of its own (docs/containers.md).
        ...(ctx.opts.container === true ? { isolation: 'container' as const } : {}),
        prompt: `A headless run started with this request to the lead:\n\n${prompt}\n\nWork on what the lead sends you or on tasks from the board; go idle when there is nothing for you.`,
      });
    }
    await Promise.race([runAction(ACTIONS.askLead, scope, { prompt }), timedOut]);
    blocked = (await Promise.race([settled(rt, deadline.signal), timedOut])) ?? [];
  } catch (err) {
    errors.push((err as Error).message);
    leadFailed = true;
  } finally {
    clearTimeout(timer);
  }
  if (deadline.signal.aborted) {
    errors.push(`timed out after ${timeoutS} s`);
    leadFailed = true;
  }
  const code = leadFailed || blocked.length ? 1 : 0;
  await stopAll(rt);
  const report = await runReport(rt, settings.model, {
    result, exit_code: code, duration_ms: Date.now() - started, timed_out: deadline.signal.aborted, errors, denied: approver.denied, blocked,
  }).catch((e: Error) => ({ result, exit_code: code, blocked, errors: [...errors, `the report could not be read: ${e.message}`] }));
  sub.dispose();
  await rt.dispose();
  if (format === 'json') writeLine(io.stdout, JSON.stringify(report, null, 2));
  else if (format === 'stream-json') line({ type: 'result', ...report });
  else {
    if (result) writeLine(io.stdout, result);
    if (blocked.length) writeLine(io.stdout, `${result ? '\n' : ''}Left blocked (exit 1):\n${blocked.map((b) => `- ${b}`).join('\n')}`);
  }
  if (format === 'text' && errors.length) writeLine(io.stderr, `agent-teams: ${errors.length} error${errors.length === 1 ? '' : 's'}: ${errors.join('; ')}`);
  return code;
}

/**
 * Resolves with what was left undone once the team has been at rest for QUIET_MS: the lead
 * between turns with no wake due, no teammate working or able to take a task, no merge being
 * tested (TeamSession.rest). A lead turn that ends while its team still works is not the end.
 */
async function settled(rt: TeamSession, signal: AbortSignal): Promise<string[]> {
  let quietSince = 0;
  while (!signal.aborted) {
    const rest = await rt.rest();
    if (!rest.atRest) quietSince = 0;
    else if (!quietSince) quietSince = Date.now();
    else if (Date.now() - quietSince >= QUIET_MS) return rest.left.map((i) => i.text);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return [];
}

/** The run is over: the lead's turn (if still going, after a timeout) is cancelled, teammates stopped; their state stays on disk. */
async function stopAll(rt: TeamSession): Promise<void> {
  if (rt.leadBusy()) rt.cancelLeadTurn();
  const mine = (await rt.view.members().catch(() => []))
    .filter((m) => m.status !== 'shutdown' && !['remote', 'stopped'].includes(rt.activity(m.name).kind));
  await Promise.all(mine.map((m) => rt.stopTeammate(m.name).catch(() => undefined)));
}

// The fake model's script: turn builders for tests, the per-agent turn queues, and the
// default way of telling which agent is calling (from its system prompt).
import type {
  ErrorTurn, ReplyTurn, ScriptedBlock, ScriptJson, StaticTurn, StreamShape, TurnSpec,
} from './types';

// ---- builders -------------------------------------------------------------------------

export function text(t: string): ScriptedBlock {
  return { type: 'text', text: t };
}

export function toolUse(name: string, input: unknown, id?: string): ScriptedBlock {
  return id === undefined ? { type: 'tool_use', name, input } : { type: 'tool_use', name, input, id };
}

/** A reply made of blocks (strings become text blocks). */
export function reply(...blocks: Array<ScriptedBlock | string>): ReplyTurn {
  return { type: 'reply', content: blocks.map((b) => (typeof b === 'string' ? text(b) : b)) };
}

/** The same reply, streamed with a misbehaviour (slow, stall, reset or error mid-stream). */
export function shaped(turn: ReplyTurn | string, stream: StreamShape): ReplyTurn {
  const base = typeof turn === 'string' ? reply(turn) : turn;
  return { ...base, stream: { ...base.stream, ...stream } };
}

export const fault = {
  rateLimit: (retryAfter?: number | string): ErrorTurn => ({ type: 'error', status: 429, retryAfter }),
  overloaded: (): ErrorTurn => ({ type: 'error', status: 529 }),
  server: (status = 500): ErrorTurn => ({ type: 'error', status }),
  auth: (message?: string): ErrorTurn => ({ type: 'error', status: 401, message }),
  forbidden: (): ErrorTurn => ({ type: 'error', status: 403 }),
  badRequest: (message: string): ErrorTurn => ({ type: 'error', status: 400, message }),
  /** 404 as the API answers for an unknown model; the message names the model. */
  modelNotFound: (model = 'unknown'): ErrorTurn => ({ type: 'error', status: 404, message: `model: ${model}` }),
  reset: (): StaticTurn => ({ type: 'reset' }),
  hang: (): StaticTurn => ({ type: 'hang' }),
  stall: (afterEvents = 2, turn: ReplyTurn | string = 'stalled'): ReplyTurn => shaped(turn, { stallAfter: afterEvents }),
  slow: (delayMs: number, turn: ReplyTurn | string = 'slow'): ReplyTurn => shaped(turn, { delayMs }),
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error',
  404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error',
  500: 'api_error', 529: 'overloaded_error',
};

export function errorTypeFor(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** Turns a script entry into a concrete turn (strings are text replies). */
export function normalizeTurn(spec: string | StaticTurn): StaticTurn {
  return typeof spec === 'string' ? reply(spec) : spec;
}

// ---- who is calling -------------------------------------------------------------------

/** The text of a request's system prompt: the `system` param plus any system-role messages. */
export function systemText(body: unknown): string {
  const b = (body ?? {}) as { system?: unknown; messages?: unknown };
  const parts: string[] = [];
  const add = (s: unknown) => {
    if (typeof s === 'string') parts.push(s);
    else if (Array.isArray(s)) for (const blk of s) if (blk && typeof blk.text === 'string') parts.push(blk.text);
  };
  add(b.system);
  if (Array.isArray(b.messages)) for (const m of b.messages) if (m?.role === 'system') add(m.content);
  return parts.join('\n');
}

export type AgentMatcher = (body: unknown) => string | undefined;

/** A matcher taking the first capture group of `re` in the system prompt. */
export function regexMatcher(re: RegExp | string = /You are (\w+)/): AgentMatcher {
  const rx = typeof re === 'string' ? new RegExp(re) : re;
  return (body) => rx.exec(systemText(body))?.[1];
}

// ---- the queues -----------------------------------------------------------------------

/** Per-agent FIFO queues of turns; `*` serves anyone whose own queue is empty. */
export class ScriptBook {
  private queues = new Map<string, TurnSpec[]>();
  private fallback: TurnSpec = reply('done');

  /** Appends turns to an agent's queue. */
  add(agent: string, turns: TurnSpec[]): void {
    const q = this.queues.get(agent) ?? [];
    q.push(...turns);
    this.queues.set(agent, q);
  }

  /** The answer once a queue is empty; a function default can answer from the request. */
  setDefault(turn: TurnSpec): void {
    this.fallback = turn;
  }

  /** Replaces everything with a JSON script. */
  load(script: ScriptJson): void {
    this.queues.clear();
    this.fallback = reply('done');
    if (script.default !== undefined) this.setDefault(script.default);
    for (const [agent, turns] of Object.entries(script.agents ?? {})) this.add(agent, turns);
  }

  /** Takes the next turn for `agent`. */
  next(agent: string): TurnSpec {
    return this.queues.get(agent)?.shift() ?? this.queues.get('*')?.shift() ?? this.fallback;
  }

  /** Turns not yet used, per agent (for diagnostics when a test times out). */
  remaining(): Record<string, number> {
    return Object.fromEntries([...this.queues].map(([k, v]) => [k, v.length]));
  }
}

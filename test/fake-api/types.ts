// Types of the fake Anthropic Messages API: what a script may say, and what the server records.
// Everything except `FnTurn` is plain JSON, so the standalone server can read it from a file.

/** A content block the fake model "writes". */
export type ScriptedBlock =
  | { type: 'text'; text: string }
  | {
    type: 'tool_use'; name: string; input: unknown; id?: string;
    /** Streams this text as the input JSON instead of `input`: a call cut off mid-way (use with stopReason 'max_tokens'). */
    partialJson?: string;
  };

/** How a streamed reply misbehaves (ignored for non-streaming requests, except `delayMs`). */
export interface StreamShape {
  /** Pause before each SSE event (a slow stream). */
  delayMs?: number;
  /** Send this many events, then keep the connection open and silent forever. */
  stallAfter?: number;
  /** Send this many events, then destroy the socket (connection reset mid-stream). */
  resetAfter?: number;
  /** Send this many events, then an SSE `error` event (as the real API does when overloaded mid-stream). */
  errorAfter?: number;
  /** `error.type` of that event; default `overloaded_error`. */
  errorType?: string;
  /** After `after` events, only `ping` events every `everyMs` for `forMs` (a slow but live answer), then the rest. */
  pings?: { after: number; forMs: number; everyMs: number };
}

export interface ReplyTurn {
  type: 'reply';
  content: ScriptedBlock[];
  /** Default: `tool_use` when the content has a tool_use block, else `end_turn`. */
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal';
  stream?: StreamShape;
  /** 'missing': the usage objects carry no token counts (as some proxies send). */
  usage?: 'missing';
}

/** An HTTP error response with the Anthropic error envelope. */
export interface ErrorTurn {
  type: 'error';
  status: number;
  /** `error.type`; derived from the status when absent (429 → rate_limit_error, 529 → overloaded_error…). */
  errorType?: string;
  message?: string;
  /** Value of the `retry-after` header (seconds, or an HTTP date). */
  retryAfter?: number | string;
}

/** Destroy the connection without answering. */
export interface ResetTurn { type: 'reset' }

/** Never answer at all, not even headers (exercises client timeouts and aborts before headers). */
export interface HangTurn { type: 'hang' }

export type StaticTurn = ReplyTurn | ErrorTurn | ResetTurn | HangTurn;

/** In-process only: decide the answer from what was sent. */
export type FnTurn = (req: RecordedRequest) => TurnSpec | Promise<TurnSpec>;

/** What a script lists per agent. A bare string is a text reply that ends the turn. */
export type TurnSpec = string | StaticTurn | FnTurn;

/** The JSON form of a whole script (file or control endpoint). */
export interface ScriptJson {
  /** Regex source whose first capture group names the calling agent; default `You are (\w+)`. */
  agentPattern?: string;
  /** Answer once an agent's turns (and the `*` turns) are used up; default: text "done". */
  default?: string | StaticTurn;
  /** Turns per agent name; `*` serves any agent whose own list is empty. */
  agents?: Record<string, Array<string | StaticTurn>>;
}

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Cumulative figures for one agent (what a cache benchmark reads). */
export interface AgentUsage extends TokenUsage {
  requests: number;
}

export interface RecordedRequest {
  /** 1-based arrival order across all agents. */
  seq: number;
  agent: string;
  method: string;
  path: string;
  /** Request headers with `x-api-key` and `authorization` removed. */
  headers: Record<string, string>;
  /** How the key arrived; the key itself is never stored. */
  auth: 'x-api-key' | 'bearer' | 'none';
  /** sha256 of the key, first 12 hex chars (see `keyFingerprint`), so tests can tell keys apart. */
  keyFingerprint?: string;
  /** Parsed JSON body (undefined when it was not JSON). */
  // any: arbitrary client JSON that tests index into freely.
  body: any;
  stream: boolean;
  receivedAt: number;
  /** What the server did: `reply`, `error:<status>`, `reset`, `hang`, `stall`. Set once decided. */
  outcome?: string;
  /** Usage reported to the client, for replies. */
  usage?: TokenUsage;
  /** Time the response was completely written. */
  finishedAt?: number;
  /** Time the connection closed before the response was complete (client gone, or a scripted reset). */
  disconnectedAt?: number;
}

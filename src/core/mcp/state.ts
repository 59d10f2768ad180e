// An MCP server's state and its words (docs/mcp.md), apart from the connection code so the
// views can show it without loading any of that.
export type McpServerState =
  | { kind: 'configured' }
  | { kind: 'awaiting-approval' }
  | { kind: 'starting' }
  | { kind: 'ready'; tools: number }
  | { kind: 'failed'; error: string; stderr: string }
  /** Not started on purpose: an untrusted workspace, or the user said no. */
  | { kind: 'declined'; reason: string }
  | { kind: 'stopped' };

/** A state in words, as the Team view, `agent-teams mcp` and /mcp show it. */
export function stateWords(s: McpServerState): string {
  switch (s.kind) {
    case 'configured': return 'not started';
    case 'awaiting-approval': return 'waiting for your approval to start';
    case 'starting': return 'starting';
    case 'ready': return `ready, ${s.tools} tool${s.tools === 1 ? '' : 's'}`;
    case 'failed': return `failed: ${s.error}`;
    case 'declined': return `not started: ${s.reason}`;
    case 'stopped': return 'stopped';
  }
}

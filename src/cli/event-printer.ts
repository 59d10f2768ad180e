// Runtime events as terminal lines: the lead's words in full, tool calls as one line with
// the first lines of their result, teammates' chatter shortened, and only the activity
// changes a person would want to know about (retries, pauses, remote hosts, a container's start).
import { containerWords, type RuntimeEvent } from '../core/session';

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** `name="alice", role="writer"`: the input as the model wrote it, each value shortened. */
export function toolArgs(input: unknown): string {
  if (!input || typeof input !== 'object') return input === undefined ? '' : clip(JSON.stringify(input), 80);
  return Object.entries(input as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${clip(JSON.stringify(v) ?? '', 60)}`)
    .join(', ');
}

function resultLines(result: string, isError: boolean, maxLines: number): string[] {
  const lines = result.trimEnd().split('\n');
  const shown = lines.slice(0, maxLines).map((l, i) => `      ${i === 0 ? (isError ? 'x ' : '> ') : '  '}${clip(l, 200)}`);
  if (lines.length > maxLines) shown.push(`        … ${lines.length - maxLines} more line${lines.length - maxLines === 1 ? '' : 's'}`);
  return shown;
}

export function describeEvent(e: RuntimeEvent): string | null {
  switch (e.type) {
    case 'text':
      return e.agent === 'lead' ? e.text.trim() : `[${e.agent}] ${clip(e.text.trim(), 400)}`;
    case 'tool': {
      const lead = e.agent === 'lead';
      return [`  [${e.agent}] ${e.tool}(${toolArgs(e.input)})`, ...resultLines(e.result, e.isError, lead ? 4 : 1)].join('\n');
    }
    case 'notice':
      return `${e.level === 'info' ? '·' : `${e.level}:`} ${e.message}`;
    case 'activity': {
      const a = e.activity;
      if (a.kind === 'retrying') return `· ${e.agent}: retrying in ${(a.inMs / 1000).toFixed(1)} s (${a.reason}), attempt ${a.attempt}`;
      if (a.kind === 'paused') return `· ${e.agent} paused: ${a.reason}`;
      if (a.kind === 'remote') return `· ${e.agent} is run by another host (${a.host}); this session does not run it.`;
      return null;
    }
    case 'usage':
    case 'text_delta':
    case 'tool_start':
    case 'transcript':
    case 'jobs':
      return null;
    case 'container':
      // Each step of a start (building the image… can take minutes), running, stopped, unreachable: as the Team tree says it.
      return e.container ? `· ${e.agent}'s container ${containerWords(e.container)}` : null;
  }
}

// Transcript rows (src/shared/transcript-rows.ts) and change records as terminal text and as
// Markdown. The rows decide what shows in each mode; this file only lays them out. Control
// characters are made visible by writeLine (io.ts), never sent to the terminal.
import type { ChangeRecord } from '../core/session';
import type { Row } from '../shared/transcript-rows';

const clock = (ts?: number): string => (ts ? new Date(ts * 1000).toISOString().slice(11, 19) : '--:--:--');

const indent = (s: string, pad = '    '): string => s.replace(/\n+$/, '').replace(/^/gm, pad);

function headLine(r: Row): string {
  const mark = r.tone === 'error' ? '✗ ' : r.tone === 'warning' ? '! ' : '';
  return `[${clock(r.ts)}] ${mark}${r.label}${r.head ? `  ${r.head}` : ''}${r.streaming ? ' …' : ''}`;
}

/** One row as terminal lines: its head, then its input and body unless folded. */
export function rowText(r: Row): string {
  const out = [headLine(r)];
  if (r.input) out.push(indent(r.input, '    │ '));
  if (r.body !== undefined && r.body !== '') {
    if (r.fold === 'closed') {
      const n = r.body.split('\n').length;
      out.push(`    (${n} line${n === 1 ? '' : 's'} folded; --view verbose shows them)`);
    } else out.push(indent(r.body));
  }
  return out.join('\n');
}

/** The result of a tool call that finished after its head was printed (`log --follow`). */
export function resultText(r: Row): string {
  if (r.body === undefined || r.body === '') return `    ↳ ${r.label} done${r.tone === 'error' ? ' (failed)' : ''}`;
  const n = r.body.split('\n').length;
  return r.fold === 'closed' ? `    ↳ ${r.label}: ${n} lines of output folded; --view verbose shows them` : indent(r.body, '    ↳ ');
}

/** A fence that the text itself does not contain, so its content cannot close it. */
function fence(text: string): string {
  let f = '```';
  while (text.includes(f)) f += '`';
  return f;
}

/** One row as Markdown (the export): model text as it was, everything else fenced. */
export function rowMarkdown(r: Row): string {
  const title = `**${r.label}**${r.head ? ` · ${r.head.replace(/[*_`[\]<>]/g, (c) => `\\${c}`)}` : ''} <sub>${clock(r.ts)}</sub>`;
  const parts = [title];
  if (r.input) parts.push(`${fence(r.input)}json\n${r.input}\n${fence(r.input)}`);
  if (r.body) {
    // Raw HTML in model text stays text wherever the Markdown is viewed.
    const inert = r.body.replace(/</g, '&lt;');
    if (r.format === 'markdown' && (r.kind === 'text' || r.kind === 'prompt')) parts.push(inert);
    else if (r.format === 'markdown') parts.push(inert.replace(/^/gm, '> '));
    else parts.push(`${fence(r.body)}\n${r.body}\n${fence(r.body)}`);
  }
  return parts.join('\n\n');
}

function side(s: ChangeRecord['before']): string {
  if (s === null) return 'none';
  return `${s.bytes} B${s.stored ? '' : ` (${s.why === 'binary' ? 'binary' : s.why === 'too_large' ? 'over 1 MB' : 'not stored'}, no content)`}`;
}

export function changeLine(c: ChangeRecord): string {
  const where = c.root ? `${c.root}/${c.path}` : c.path;
  const what = c.tool === 'revert' ? `revert of ${c.reverts ?? '?'}` : c.before === null ? 'created' : c.tool === 'edit_file' ? 'edited' : 'overwritten';
  const task = c.task !== null ? ` task #${c.task}` : '';
  return `${new Date(c.ts * 1000).toISOString().replace('T', ' ').slice(0, 19)}  ${c.agent.padEnd(10)} ${what.padEnd(12)} ${where}${task}  [${side(c.before)} → ${side(c.after)}]  ${c.id}`;
}

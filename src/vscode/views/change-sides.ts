// What the Changes view's diffs compare (README "Watching the work"): a change row, its change's
// content before ↔ after; a file row, the whole of one agent's work on the file — the content
// before its first recorded change ↔ after its last (changes by others in between included, as
// the file went). Without VS Code, so the rows' commands and the sides' text are unit-tested
// (test/vscode/change-sides.test.ts); changes-view.ts puts them in the tree and the diff editor.
import type { ChangeLog, ChangeRecord } from '../../core/session';

/** The changes a diff spans: `id` alone, or from before `id` to after `through` (same file, oldest first). */
export interface ChangeSpan {
  id: string;
  through?: string;
}

export const OPEN_CHANGE = 'agentTeams.openChange';

/** What a click on a file row runs: Open Change over the span of its changes (oldest first). */
export function fileRowCommand(changes: readonly ChangeRecord[]): { command: string; title: string; arguments: [ChangeSpan] } {
  const first = changes[0]!;
  const last = changes[changes.length - 1]!;
  return { command: OPEN_CHANGE, title: 'Open Changes', arguments: [last.id === first.id ? { id: first.id } : { id: first.id, through: last.id }] };
}

/** The span an Open Change argument names: a change row, a file row, or `{id, through?}`. */
export function spanOf(arg: unknown): ChangeSpan | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const n = arg as { nodeKind?: unknown; change?: ChangeRecord; changes?: ChangeRecord[]; id?: unknown; through?: unknown };
  if (n.nodeKind === 'change' && n.change) return { id: n.change.id };
  if (n.nodeKind === 'changeFile' && n.changes?.length) return fileRowCommand(n.changes).arguments[0];
  if (typeof n.id !== 'string') return undefined;
  return typeof n.through === 'string' && n.through !== n.id ? { id: n.id, through: n.through } : { id: n.id };
}

/** The query of one side's document: `id=<id>&side=before|after`. */
export function sideQuery(id: string, side: 'before' | 'after'): string {
  return `id=${encodeURIComponent(id)}&side=${side}`;
}

/** The text of one side of a change: its stored content, '' for no file, or why it is not shown. */
export async function sideText(log: ChangeLog, c: ChangeRecord | undefined, side: 'before' | 'after'): Promise<string> {
  if (!c) return '(this change is no longer recorded)';
  const s = side === 'before' ? c.before : c.after;
  if (s === null) return '';
  const buf = await log.content(s);
  if (buf) return buf.toString('utf8');
  return `(content not recorded: ${s.why === 'binary' ? 'binary file' : s.why === 'too_large' ? 'over 1 MB' : 'not stored'}; ${s.bytes} bytes)`;
}

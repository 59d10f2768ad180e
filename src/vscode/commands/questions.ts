// Quick picks and input boxes the commands ask with when run without an argument object.
// Each returns CANCEL when the user dismisses it, so a command can stop without an error.
import * as vscode from 'vscode';
import { isParticipantName, type TeamView } from '../../core/session';

export const CANCEL = Symbol('cancel');
export type Asked<T> = T | typeof CANCEL;

export interface TextOptions {
  title: string;
  prompt: string;
  placeHolder?: string;
  /** Empty input allowed (optional fields). */
  optional?: boolean;
  password?: boolean;
  validate?: (v: string) => string | undefined;
}

export async function askText(o: TextOptions): Promise<Asked<string>> {
  const v = await vscode.window.showInputBox({
    title: o.title, prompt: o.prompt, placeHolder: o.placeHolder, password: o.password, ignoreFocusOut: true,
    validateInput: (text) => (!o.optional && !text.trim() ? 'Required' : o.validate?.(text.trim())),
  });
  return v === undefined ? CANCEL : v.trim();
}

interface Pick<T> extends vscode.QuickPickItem { value: T }

async function pickOne<T>(title: string, items: Pick<T>[], empty: string): Promise<Asked<T>> {
  if (items.length === 0) throw new Error(empty);
  const picked = await vscode.window.showQuickPick(items, { title, ignoreFocusOut: true, matchOnDescription: true });
  return picked ? picked.value : CANCEL;
}

/** Teammates (and optionally the lead) to pick from; `which` filters by roster status. */
export async function pickParticipant(team: TeamView, title: string, opts: { lead?: boolean; which: (status: string) => boolean }): Promise<Asked<string>> {
  const members = await team.members();
  const items: Pick<string>[] = members.filter((m) => opts.which(m.status))
    .map((m) => ({ label: m.name, description: `${m.role} · ${m.status}`, value: m.name }));
  if (opts.lead) items.unshift({ label: 'lead', description: 'Lead', value: 'lead' });
  return pickOne(title, items, 'No teammate to choose from.');
}

/** A task's owner: a teammate from the roster, or nobody (empty string). */
export async function pickOwner(team: TeamView, title: string): Promise<Asked<string>> {
  const members = (await team.members()).filter((m) => m.status !== 'shutdown');
  const items: Pick<string>[] = [
    { label: 'Nobody', description: 'unowned: any teammate may claim it', value: '' },
    ...members.map((m) => ({ label: m.name, description: `${m.role} · ${m.status}`, value: m.name })),
  ];
  return pickOne(title, items, 'No teammate to choose from.');
}

export async function pickPendingPlan(team: TeamView, title: string): Promise<Asked<string>> {
  const pending = await team.requests({ status: 'pending', kind: 'plan' });
  return pickOne(title, pending.map((r) => ({
    // The plan's words, not its request id (the protocol's, which tells a reader nothing).
    label: `${r.from}: ${firstLine(r.plan ?? '')}`, detail: r.plan?.slice(0, 300), value: r.request_id,
  })), 'No plan is waiting for approval.');
}

export async function pickTask(team: TeamView, title: string, open: boolean): Promise<Asked<number>> {
  const tasks = (await team.tasks()).filter((t) => !open || t.status !== 'completed');
  return pickOne(title, tasks.map((t) => ({ label: `#${t.id} ${t.subject}`, description: t.status, value: t.id })), 'No task to choose from.');
}

/** Several open tasks (for blockedBy); an empty board skips the question. */
export async function pickTasks(team: TeamView, title: string): Promise<Asked<number[]>> {
  const open = (await team.tasks()).filter((t) => t.status !== 'completed');
  if (open.length === 0) return [];
  const picked = await vscode.window.showQuickPick(
    open.map((t): Pick<number> => ({ label: `#${t.id} ${t.subject}`, description: t.status, value: t.id })),
    { title, canPickMany: true, ignoreFocusOut: true, placeHolder: 'Tasks that must be completed first (none: press Enter)' });
  return picked ? picked.map((p) => p.value) : CANCEL;
}

export function validateName(v: string): string | undefined {
  if (!isParticipantName(v)) return 'Lowercase letters, digits, - and _; starts with a letter; at most 32 characters.';
  if (v === 'lead' || v === 'user') return `"${v}" is reserved.`;
  return undefined;
}

function firstLine(s: string): string {
  const line = s.split('\n').find((l) => l.trim()) ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

// What a headless run (`agent-teams run`, docs/headless.md) reports at its end: the lead's
// final words, each agent's usage and estimated cost, the board, the files changed, the
// errors and the questions denied. `--output-format json` prints it as one object;
// `stream-json` ends with it as its `result` line; `text` prints only the lead's words.
import { estimateCost, type TeamSession } from '../core/session';
import type { Denial } from './headless-approver';

export interface RunReport {
  result: string;
  is_error: boolean;
  exit_code: number;
  duration_ms: number;
  timed_out: boolean;
  agents: Array<{ name: string; model: string; usage: { input: number; output: number; cache_read: number; cache_write: number }; cost_usd: number; cost_known: boolean }>;
  tasks: Array<{ id: number; subject: string; status: string; owner: string }>;
  changes: Array<{ agent: string; path: string; tool: string; task: number | null; ts: number }>;
  errors: string[];
  denied: Denial[];
  /** What the team left undone at rest (runtime/work-left.ts): a non-empty list makes the exit code 1. */
  blocked: string[];
}

export async function runReport(rt: TeamSession, model: string, r: Pick<RunReport, 'result' | 'exit_code' | 'duration_ms' | 'timed_out' | 'errors' | 'denied' | 'blocked'>): Promise<RunReport> {
  const config = await rt.view.roster();
  const agent = (name: string, m: string, u: Partial<RunReport['agents'][number]['usage']> | undefined) => {
    const usage = { input: u?.input ?? 0, output: u?.output ?? 0, cache_read: u?.cache_read ?? 0, cache_write: u?.cache_write ?? 0 };
    const c = estimateCost(m, usage);
    return { name, model: m, usage, cost_usd: Number(c.usd.toFixed(6)), cost_known: c.known };
  };
  const tasks = await rt.view.tasks();
  const { changes } = await rt.view.changeLog().list();
  return {
    ...r,
    is_error: r.exit_code !== 0,
    agents: [agent('lead', model, config.lead?.usage), ...config.members.map((m) => agent(m.name, m.model ?? model, m.usage))],
    tasks: tasks.map((t) => ({ id: t.id, subject: t.subject, status: t.status, owner: t.owner })),
    changes: changes.map((c) => ({ agent: c.agent, path: c.root ? `${c.root}/${c.path}` : c.path, tool: c.tool, task: c.task, ts: c.ts })),
  };
}

// Permission rules on the file tools (docs/permissions.md): Read rules on read_file,
// Edit/Write rules on write_file and edit_file. An `ask` rule on a change shows the user
// the change (the host's diff) before it is written.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decideFile } from '../../permissions/decide';
import { fail, type AgentHandle, type ToolHost, type ToolResult } from './definition';
import { readDecision } from './read-guard';

/** Undefined to go ahead, or the refusal to return. `after` gives the proposed content of a change. */
export async function fileGate(tool: 'Edit' | 'Write' | 'Read', userPath: string, a: AgentHandle, h: ToolHost, after?: (before: string | null) => string): Promise<ToolResult | undefined> {
  const rules = h.settings().permissions;
  if (!rules.allow.length && !rules.ask.length && !rules.deny.length) return undefined;
  const abs = await a.fs.resolve(userPath);
  const root = await a.fs.resolve('.');
  const rel = path.relative(root, abs).split(path.sep).join('/');
  const d = tool === 'Read' ? await readDecision(root, rules, rel, abs) : decideFile(rules, tool, rel, abs);
  if (!d || d.verdict === 'allow') return undefined;
  if (d.verdict === 'deny') return fail(`Refused: ${d.reason}.`);
  const asksChange = tool !== 'Read' && after !== undefined;
  // The current content is read first, so "waiting for approval" shows once the question is out.
  const before = asksChange && h.approver.fileChange ? await readFile(abs, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  }) : null;
  a.setActivity({ kind: 'waiting-approval', what: `${tool === 'Read' ? 'read' : 'change'} ${rel}` });
  let answer: 'allow' | 'deny' = 'deny';
  if (!asksChange) {
    answer = h.approver.tool ? await h.approver.tool(a.name, `read ${rel}`, d.reason, a.signal) : 'deny';
  } else if (h.approver.fileChange) {
    answer = await h.approver.fileChange(a.name, { path: userPath, abs, before, after: after!(before), rule: d.rule ?? '' }, a.signal);
  }
  a.setActivity({ kind: 'tool', tool: tool === 'Read' ? 'read_file' : tool === 'Edit' ? 'edit_file' : 'write_file' });
  return answer === 'allow' ? undefined : fail(`The user denied this ${tool === 'Read' ? 'read' : 'change'} (${d.reason}).`);
}

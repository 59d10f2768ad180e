// Permission rules on the file tools (docs/permissions.md): Read rules on read_file,
// Edit/Write rules on write_file and edit_file. An `ask` rule on a change shows the user
// the change (the host's diff) before it is written; so does any change to `.mcp.json` or
// `.claude/**`, whatever the rules.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { decideFile } from '../../permissions/decide';
import { configuredGitPaths } from '../../sandbox/git-config-paths';
import { ALWAYS_ASK_PATHS } from '../../sandbox/policy';
import { findGit } from '../../worktree/git-folders';
import { ownedElsewhere, ownershipRefusal } from '../../team/file-ownership';
import { fail, type AgentHandle, type ToolHost, type ToolResult } from './definition';
import { readDecision } from './read-guard';

/** What the file gates reach of the runner. */
export type FileGateHost = Pick<ToolHost, 'team' | 'settings' | 'approver'>;

/** Why changing `rel` always asks (the policy table's ALWAYS_ASK_PATHS), or undefined. */
export function controlFileReason(rel: string): string | undefined {
  const r = rel.toLowerCase();
  const hit = ALWAYS_ASK_PATHS.find((p) => r === p.name || (p.folder && r.startsWith(`${p.name}/`)));
  return hit ? `${hit.why}, so changing it always asks` : undefined;
}

/**
 * A file your git configuration runs or reads as configuration (a `core.hooksPath` folder such
 * as husky's, an included config file: sandbox/git-config-paths.ts): your own `git commit` would
 * run what an agent wrote there, so a change asks, as the sandbox keeps it read-only to commands.
 */
async function gitConfigReason(abs: string): Promise<string | undefined> {
  const g = await findGit(path.dirname(abs)).catch(() => null);
  if (!g) return undefined;
  const hit = (await configuredGitPaths(g)).find((p) => abs === p.path || abs.startsWith(p.path + path.sep));
  return hit ? `your git configuration runs or reads ${path.relative(g.top, hit.path) || hit.path} (e.g. as hooks on every commit), so changing it always asks` : undefined;
}

/** The file's path relative to the agent's folder (workspace or worktree: the same relative path). */
async function relPath(userPath: string, a: AgentHandle): Promise<{ abs: string; rel: string }> {
  const abs = await a.fs.resolve(userPath);
  const root = await a.fs.resolve('.');
  return { abs, rel: path.relative(root, abs).split(path.sep).join('/') };
}

/** File ownership (core/team/file-ownership.ts): a change to a file another's in-progress task owns is refused. */
export async function ownershipGate(userPath: string, a: AgentHandle, h: FileGateHost): Promise<ToolResult | undefined> {
  const owners = await h.team.tasks.select((t) => t.status === 'in_progress' && !!t.files?.length && t.owner !== a.name);
  if (!owners.length) return undefined;
  const { rel } = await relPath(userPath, a);
  const t = ownedElsewhere(owners, rel, a.name);
  return t ? fail(`Refused: ${ownershipRefusal(t, rel)}.`) : undefined;
}

/** Undefined to go ahead, or the refusal to return. `after` gives the proposed content of a change. */
export async function fileGate(tool: 'Edit' | 'Write' | 'Read', userPath: string, a: AgentHandle, h: FileGateHost, after?: (before: string | null) => string): Promise<ToolResult | undefined> {
  const rules = h.settings().permissions;
  const noRules = !rules.allow.length && !rules.ask.length && !rules.deny.length;
  if (noRules && tool === 'Read') return undefined;
  const abs = await a.fs.resolve(userPath);
  const root = await a.fs.resolve('.');
  const rel = path.relative(root, abs).split(path.sep).join('/');
  const ruled = tool === 'Read' ? await readDecision(root, rules, rel, abs) : noRules ? undefined : decideFile(rules, tool, rel, abs);
  const control = tool === 'Read' || ruled?.verdict === 'deny' ? undefined : controlFileReason(rel) ?? (await gitConfigReason(abs));
  const d = control ? { verdict: 'ask' as const, reason: control, rule: '' } : ruled;
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
    answer = await h.approver.fileChange(a.name, { path: userPath, abs, before, after: after!(before), rule: d.rule ?? '', ...(control ? { why: control } : {}) }, a.signal);
  }
  a.setActivity({ kind: 'tool', tool: tool === 'Read' ? 'read_file' : tool === 'Edit' ? 'edit_file' : 'write_file' });
  return answer === 'allow' ? undefined : fail(`The user denied this ${tool === 'Read' ? 'read' : 'change'} (${d.reason}).`);
}

// Agent definitions: reusable roles in `.team/agents/*.md` and Claude Code's
// `.claude/agents/*.md` — YAML front matter (name, description, tools, model) and a body of
// role instructions (docs/file-formats.md, "Agent definitions"). A file that cannot be used
// is reported with its path and skipped; it never stops the others from loading.
import { open, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parseDocument } from 'yaml';
import { AgentFrontMatter } from '../../shared/agent-definition';
import { TOOL_FACTS } from '../../shared/tool-facts';
import { NAME_RE, RESERVED } from '../util/names';
import { resolveModel } from './models';

export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names the model may be offered (ours, after mapping Claude Code's); null = all. */
  tools: string[] | null;
  /** Resolved model id; undefined = the team's model. */
  model: string | undefined;
  /** Role instructions, joined to the teammate's system prompt. */
  body: string;
  /** Workspace-relative path of the file. */
  path: string;
  /** Its front matter's `isolation` (docs/containers.md); used when the spawn names none. */
  isolation?: 'none' | 'worktree' | 'container';
}

export interface DefinitionProblem {
  path: string;
  message: string;
}

export interface Definitions {
  definitions: AgentDefinition[];
  problems: DefinitionProblem[];
}

/** Folders searched, first wins on a duplicate name: the team's own before Claude Code's. */
export const DEFINITION_DIRS = ['.team/agents', '.claude/agents'] as const;
/** Bodies join every request's system prompt: longer ones are cut, with a problem reported. */
export const MAX_BODY_CHARS = 32_000;
/** Files past this are not read at all. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_DESCRIPTION_CHARS = 1_000;

/** Claude Code's tool names, so its definitions carry over. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(TOOL_FACTS).flatMap(([ours, f]) => (f.claudeNames ?? []).map((claude) => [claude, ours])));

export interface LoadOptions {
  /** Tool names a teammate can have; anything else in `tools` is a problem. */
  knownTools: ReadonlySet<string>;
  /** The team's model, for the `sonnet`/`opus`/`haiku` aliases. */
  teamModel: string;
}

export async function loadAgentDefinitions(root: string, opts: LoadOptions): Promise<Definitions> {
  const out: Definitions = { definitions: [], problems: [] };
  const realRoot = await realpath(root).catch(() => root);
  for (const dir of DEFINITION_DIRS) {
    const names = await readdir(join(root, dir)).catch(() => [] as string[]);
    for (const file of names.filter((n) => n.endsWith('.md')).sort()) {
      const rel = `${dir}/${file}`;
      const r = await loadOne(join(root, rel), rel, realRoot, opts);
      if ('problem' in r) {
        out.problems.push({ path: rel, message: r.problem });
        continue;
      }
      if (r.warning) out.problems.push({ path: rel, message: r.warning });
      const first = out.definitions.find((d) => d.name === r.def.name);
      if (first) {
        out.problems.push({ path: rel, message: `duplicate agent name "${r.def.name}" (already defined in ${first.path}); skipped` });
        continue;
      }
      out.definitions.push(r.def);
    }
  }
  out.definitions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

type LoadResult = { problem: string } | { def: AgentDefinition; warning?: string };

async function loadOne(abs: string, rel: string, realRoot: string, opts: LoadOptions): Promise<LoadResult> {
  // A cloned repository could link a definition to a private file: its text would go to the model.
  const real = await realpath(abs).catch(() => null);
  if (!real) return { problem: 'cannot be read' };
  const inside = relative(realRoot, real);
  if (inside.startsWith(`..${sep}`) || inside === '..' || inside.startsWith(sep)) return { problem: 'links outside the workspace; skipped' };
  const text = await readCapped(real);
  if (text === null) return { problem: 'cannot be read (not a regular file)' };
  if (text === false) return { problem: `larger than ${MAX_FILE_BYTES / 1024 / 1024} MB; skipped` };
  const split = splitFrontMatter(text);
  if (!split) return { problem: 'no YAML front matter (the file must start with a line "---" and close it with another)' };
  const doc = parseDocument(split.yaml, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) return { problem: `broken YAML front matter: ${doc.errors[0]!.message.split('\n')[0]}` };
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 50 });
  } catch (err) {
    return { problem: `broken YAML front matter: ${(err as Error).message}` };
  }
  const fm = AgentFrontMatter.safeParse(raw ?? {});
  if (!fm.success) {
    return { problem: `front matter: ${fm.error.issues.map((i) => `${i.path.join('.') || 'front matter'}: ${i.message}`).join('; ')}` };
  }
  const { name, description } = fm.data;
  if (!NAME_RE.test(name) || (RESERVED as readonly string[]).includes(name)) {
    return { problem: `bad name ${JSON.stringify(name.slice(0, 40))}: must match ${NAME_RE} and not be lead or user` };
  }
  const tools = parseTools(fm.data.tools, opts.knownTools);
  if ('problem' in tools) return tools;
  const model = resolveModel(fm.data.model, opts.teamModel);
  if (!model.ok) return { problem: model.error };
  let body = split.body.trim();
  let warning = model.warning;
  if (body.length > MAX_BODY_CHARS) {
    warning = [warning, `body of ${body.length} characters cut to ${MAX_BODY_CHARS}`].filter(Boolean).join('; ');
    body = `${body.slice(0, MAX_BODY_CHARS)}\n[… cut: the definition's body is longer than ${MAX_BODY_CHARS} characters]`;
  }
  return {
    def: {
      name, description: oneLine(description).slice(0, MAX_DESCRIPTION_CHARS), tools: tools.list, model: model.model, body, path: rel,
      ...(fm.data.isolation ? { isolation: fm.data.isolation } : {}),
    },
    ...(warning ? { warning } : {}),
  };
}

function parseTools(v: string | string[] | null | undefined, known: ReadonlySet<string>): { list: string[] | null } | { problem: string } {
  if (v === null || v === undefined) return { list: null };
  const items = (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean);
  const list: string[] = [];
  const unknown: string[] = [];
  for (const item of items) {
    const ours = CLAUDE_TOOL_NAMES[item] ?? item;
    if (known.has(ours) || /^mcp__[A-Za-z0-9_-]+(__[A-Za-z0-9_-]+)?$/.test(ours)) {
      if (!list.includes(ours)) list.push(ours);
    } else unknown.push(item.slice(0, 60));
  }
  if (unknown.length) return { problem: `unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')} in "tools"; skipped` };
  return { list };
}

function splitFrontMatter(text: string): { yaml: string; body: string } | null {
  const t = text.replace(/^\uFEFF/, '');
  const m = /^---[ \t]*\r?\n([\s\S]*?)^---[ \t]*(?:\r?\n|$)/m.exec(t);
  if (!m || m.index !== 0) return null;
  return { yaml: m[1]!, body: t.slice(m[0].length) };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** The file's text, false when it is too large, null when it is no regular file. */
async function readCapped(path: string): Promise<string | null | false> {
  const fh = await open(path, 'r').catch(() => null);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile()) return null;
    if (st.size > MAX_FILE_BYTES) return false;
    return (await fh.readFile()).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** The lead's view of the definitions: one line each, in name order (stable for the prompt cache). */
export function definitionsForLead(defs: AgentDefinition[]): string {
  if (!defs.length) return '';
  return [
    'Agent definitions you can spawn teammates from (spawn_teammate agent_type; their model and tools are fixed by the definition):',
    ...defs.map((d) => `- ${d.name}: ${d.description.slice(0, 300)}${d.model ? ` (model ${d.model})` : ''}`),
  ].join('\n');
}

// The read-only search tools: list_dir, glob and grep (docs/tools.md). They never ask for
// approval and are allowed in plan mode; they stay inside the agent's folder by real path,
// respect .gitignore, and leave out files a Read deny rule covers (grep also the lines of files
// a Read ask rule covers: only read_file, which asks, shows those) — by name, real path and
// identity (read-guard.ts). A container teammate's search runs in its container (a.fs.remote,
// core/container/container-fs.ts).
import path from 'node:path';
import { z } from 'zod';
import { glob as globFiles, grep as grepFiles, listDir as listFolder, type SearchContext } from '../../exec/search/search';
import { decideFile } from '../../permissions/decide';
import { toolFamily, ok, type AgentHandle, type ToolHost } from './definition';
import { hasReadRules, linkVerdict } from './read-guard';

/** What this family's tools reach of the runner: a test drives them with a fake of just this. */
export type SearchToolHost = Pick<ToolHost, 'settings'>;
const defineTool = toolFamily<keyof SearchToolHost>();

const both = ['lead', 'teammate'] as const;

function searchContext(a: AgentHandle, h: SearchToolHost): SearchContext {
  const rules = h.settings().permissions;
  const root = a.fs.root;
  const verdict = (rel: string) => decideFile(rules, 'Read', rel, path.join(root, rel))?.verdict;
  return {
    fs: a.fs, signal: a.signal,
    hidden: rules.deny.length ? (rel) => verdict(rel) === 'deny' : undefined,
    askFirst: rules.ask.length ? (rel) => verdict(rel) === 'ask' : undefined,
    // Symbolic and hard links are judged as the file they are (read-guard.ts).
    linkVerdict: hasReadRules(rules) ? async (link) => linkVerdict(await a.fs.resolve('.'), rules)(link) : undefined,
  };
}

export const listDir = defineTool({
  name: 'list_dir',
  description: 'List a folder (default: the root) without .gitignored entries.',
  input: z.object({ path: z.string().nullish() }),
  agents: both,
  async run(input, a, h) {
    return ok(await (a.fs.remote?.listDir(input) ?? listFolder(searchContext(a, h), input)));
  },
});

export const glob = defineTool({
  name: 'glob',
  description: 'Find files by glob pattern, respecting .gitignore.',
  input: z.object({
    pattern: z.string().min(1),
    path: z.string().nullish(),
  }),
  agents: both,
  async run(input, a, h) {
    return ok(await (a.fs.remote?.glob(input) ?? globFiles(searchContext(a, h), input)));
  },
});

export const grep = defineTool({
  name: 'grep',
  description: 'Search files by JavaScript regex, respecting .gitignore; prints file:line:text. Like glob and list_dir, it never asks for approval.',
  input: z.object({
    pattern: z.string().min(1),
    path: z.string().nullish(),
    glob: z.string().nullish(),
    ignore_case: z.boolean().nullish(),
    max_results: z.number().int().positive().nullish(),
  }),
  agents: both,
  async run(input, a, h) {
    return ok(await (a.fs.remote?.grep(input) ?? grepFiles(searchContext(a, h), input)));
  },
});

export const searchTools = [listDir, glob, grep];

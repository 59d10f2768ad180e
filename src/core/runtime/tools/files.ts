// File tools: read, write and edit files through the agent's WorkspaceFs, which confines
// every path to its workspace (or worktree) by real path.
import { z } from 'zod';
import { toolFamily, ok, type ToolHost } from './definition';
import { fileGate, ownershipGate } from './file-rules';

/** What this family's tools reach of the runner: a test drives them with a fake of just this. */
export type FileToolHost = Pick<ToolHost, 'team' | 'settings' | 'approver'>;
const defineTool = toolFamily<keyof FileToolHost>();

const both = ['lead', 'teammate'] as const;

export const readFile = defineTool({
  name: 'read_file',
  description: 'Read a text file; offset (1-based) and limit count lines.',
  input: z.object({
    path: z.string(),
    limit: z.number().int().positive().nullish(),
    offset: z.number().int().positive().nullish(),
  }),
  agents: both,
  async run({ path, limit, offset }, a, h) {
    const refused = await fileGate('Read', path, a, h);
    return refused ?? ok(await a.fs.readFile(path, { limit, offset }));
  },
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Create or overwrite a file (folders created).',
  input: z.object({
    path: z.string(),
    content: z.string(),
  }),
  agents: both,
  changesWorkspace: true,
  async run({ path, content }, a, h) {
    const refused = (await ownershipGate(path, a, h)) ?? (await fileGate('Write', path, a, h, () => content));
    if (refused) return refused;
    const r = await a.fs.writeFile(path, content);
    return ok(`${r.created ? 'Created' : 'Wrote'} ${path} (${r.bytes} bytes)`);
  },
});

export const editFile = defineTool({
  name: 'edit_file',
  description: 'Replace old_text, found exactly once in the file, with new_text.',
  input: z.object({
    path: z.string(),
    old_text: z.string().min(1),
    new_text: z.string(),
  }),
  agents: both,
  changesWorkspace: true,
  async run({ path, old_text, new_text }, a, h) {
    const refused = (await ownershipGate(path, a, h)) ?? (await fileGate('Edit', path, a, h, (before) => (before ?? '').replace(old_text, () => new_text)));
    if (refused) return refused;
    await a.fs.editFile(path, old_text, new_text);
    return ok(`Edited ${path}`);
  },
});

export const fileTools = [readFile, writeFile, editFile];

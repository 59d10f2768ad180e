// The front matter of an agent definition (.team/agents/*.md, .claude/agents/*.md), as
// docs/file-formats.md ("Agent definitions") describes it. Loose: Claude Code's other
// fields (color, …) are kept and ignored.
import { z } from 'zod';

export const AgentFrontMatter = z.looseObject({
  name: z.string(),
  description: z.string(),
  /** A comma list (Claude Code's form) or a YAML list; absent = every tool. */
  tools: z.union([z.string(), z.array(z.string())]).nullish(),
  model: z.string().nullish(),
  /** Where its commands run (docs/containers.md): `worktree` or `container`; absent = the spawner's choice. */
  isolation: z.enum(['none', 'worktree', 'container']).nullish(),
});
export type AgentFrontMatter = z.infer<typeof AgentFrontMatter>;

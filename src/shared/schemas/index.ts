// Every team file's schema, in one place (docs/file-formats.md is the prose; these are its
// executable form). One module per file family; TEAM_FILES says which file each schema reads.
// TypeScript types are inferred from the schemas. Readers validate through them: a JSON file
// that fails is moved aside by a writer that needs it, or reported by a reader; a JSON-lines
// line that fails is reported by offset and skipped (docs/file-formats.md, "Corrupt files").
import type { z } from 'zod';
import { AgentFrontMatter } from '../agent-definition';
import { McpFile } from '../mcp-schemas';
import { ChangeRecord, OverlapWarning } from './changes';
import { FenceFile } from './fences';
import { MergeQueueFile } from './merge-queue';
import { InboxCursor, Message } from './messages';
import { ProcessRecord } from './processes';
import { RequestRecord } from './requests';
import { TeamConfig } from './roster';
import { TeamSettingsFile } from './team-settings';
import { BoardGeneration, Task } from './tasks';
import { TranscriptLine } from './transcripts';
import { WorktreeEventSchema, WorktreeIndexSchema } from './worktrees';

export * from './changes';
export * from './fences';
export * from './merge-queue';
export * from './messages';
export * from './processes';
export * from './requests';
export * from './roster';
export * from './tasks';
export * from './team-settings';
export * from './transcripts';
export * from './worktrees';
export { AgentFrontMatter, McpFile };

export interface TeamFile {
  /** Relative to the team folder; `<name>`, `<id>`… stand for the variable part. */
  path: string;
  /** `jsonl`: one record per line, each checked on its own. `front-matter`: YAML at the top of Markdown. */
  format: 'json' | 'jsonl' | 'front-matter';
  /** A file's, or each line's, schema. */
  schema: z.ZodType;
  /** Its section of docs/file-formats.md. */
  section: string;
}

/** Each team file and its schema, in the order of docs/file-formats.md's folder picture. */
export const TEAM_FILES: readonly TeamFile[] = [
  { path: '.team/config.json', format: 'json', schema: TeamConfig, section: 'Roster' },
  { path: '.team/settings.json', format: 'json', schema: TeamSettingsFile, section: 'Team settings' },
  { path: '.team/inbox/<name>.jsonl', format: 'jsonl', schema: Message, section: 'Messages' },
  { path: '.team/inbox/<name>.cursor.json', format: 'json', schema: InboxCursor, section: 'Delivery cursor' },
  { path: '.team/requests/<request_id>.json', format: 'json', schema: RequestRecord, section: 'Requests' },
  { path: '.team/transcripts/<name>.jsonl', format: 'jsonl', schema: TranscriptLine, section: 'Transcripts' },
  { path: '.team/processes/<pgid>-<start>.json', format: 'json', schema: ProcessRecord, section: 'Process records' },
  { path: '.team/fences/<name>.json', format: 'json', schema: FenceFile, section: 'Fences' },
  { path: '.team/merge-queue.json', format: 'json', schema: MergeQueueFile, section: 'Merge queue' },
  { path: '.team/changes/<name>.jsonl', format: 'jsonl', schema: ChangeRecord, section: 'Changes' },
  { path: '.team/changes/overlaps.jsonl', format: 'jsonl', schema: OverlapWarning, section: 'Changes' },
  { path: '.tasks/task_<id>.json', format: 'json', schema: Task, section: 'Tasks' },
  { path: '.tasks/.generation', format: 'json', schema: BoardGeneration, section: 'Tasks' },
  { path: '.worktrees/index.json', format: 'json', schema: WorktreeIndexSchema, section: 'Worktrees' },
  { path: '.worktrees/events.jsonl', format: 'jsonl', schema: WorktreeEventSchema, section: 'Worktrees' },
  { path: '.team/agents/<type>.md', format: 'front-matter', schema: AgentFrontMatter, section: 'Agent definitions' },
  { path: '.mcp.json', format: 'json', schema: McpFile, section: 'MCP servers (docs/mcp.md)' },
];

// `.team/settings.json`, the settings a team shares in git (docs/file-formats.md, "Team
// settings"): one object of sections, each owned by a feature and read through one reader
// (core/team/team-settings.ts), which checks each section on its own so one malformed
// section is reported by field and the others still count.
import { z } from 'zod';
import { containerFileSchema } from '../container-schemas';
import { sandboxFileSchema } from '../sandbox-schemas';

/** Permission rules (docs/permissions.md): `Bash(npm test)`, `Read(.env)`, … */
export const RuleList = z.array(z.string()).describe('Rules such as "Bash(npm test)" or "Read(.env)" (docs/permissions.md).');

export const PermissionsSection = z.object({
  allow: RuleList.optional(),
  ask: RuleList.optional(),
  deny: RuleList.optional(),
}).strict();

export const MergeAuto = z.enum(['off', 'onTaskComplete']);
export type MergeAuto = z.infer<typeof MergeAuto>;

/** The merge queue's (docs/file-formats.md, "Merge queue"); a setting that is set wins over it. */
export const MergeSettingsFile = z.looseObject({
  auto: MergeAuto.optional(),
  testCommand: z.string().optional(),
});

export const WorktreeSetupSchema = z.object({
  setup: z.array(z.string().min(1)).optional()
    .describe('Shell commands run in order in a new worktree before its teammate starts (e.g. "npm ci"); the first failure stops the rest.'),
  copy: z.array(z.string().min(1)).optional()
    .describe('Globs relative to the workspace folder (".env", "node_modules", "packages/*/node_modules") brought over from the main checkout first.'),
  timeoutSeconds: z.number().positive().optional()
    .describe('Limit for the copy and each setup command (default 600).'),
}).strict();
export type WorktreeSetup = z.infer<typeof WorktreeSetupSchema>;

/**
 * Claude Code's hooks shape (docs/hooks.md). Only its outline here: each entry is checked on
 * its own by the hooks reader (core/hooks/config.ts), which reports a bad one with its line
 * and keeps the rest, as it does for `.claude/settings.json`.
 */
export const HooksSection = z.record(z.string(), z.unknown());

/** Each section and its schema; the reader parses them one by one. */
export const TEAM_SETTINGS_SECTIONS = {
  permissions: PermissionsSection,
  sandbox: sandboxFileSchema,
  merge: MergeSettingsFile,
  worktree: WorktreeSetupSchema,
  hooks: HooksSection,
  container: containerFileSchema,
} as const;
export type TeamSettingsSection = keyof typeof TEAM_SETTINGS_SECTIONS;

export const TeamSettingsFile = z.object({
  $schema: z.string().optional(),
  permissions: PermissionsSection.optional(),
  sandbox: sandboxFileSchema.optional(),
  merge: MergeSettingsFile.optional(),
  worktree: WorktreeSetupSchema.optional(),
  hooks: HooksSection.optional(),
  /** Teammates' containers (docs/containers.md). */
  container: containerFileSchema.optional(),
}).strict();
export type TeamSettingsFile = z.infer<typeof TeamSettingsFile>;

// The command-execution policy (docs/security.md, "The policy table"): the one list of what
// an agent's command may read, write and reach, and what the host does so that it never runs
// what such a command wrote. Data only. Its readers: fs-policy.ts (paths, for the bubblewrap
// backend and any other), shell.ts (the environment), worktree/git.ts (how the product runs
// git), sandbox.ts (what is checked after a command) — and test/sandbox/policy-doc.test.ts,
// which holds docs/security.md to this table. Adding a guarded path is one row here plus its
// attack test.

/** Workspace folders no agent's command writes (in its checkout and the workspace root). */
export const CONTROL_DIRS = ['.team', '.tasks', '.worktrees', '.vscode', '.claude', '.devcontainer'] as const;
/** Workspace files no agent's command writes; an absent one cannot be guarded without leaving a file (docs/security.md). */
export const CONTROL_FILES = ['.mcp.json', '.devcontainer.json'] as const;

/**
 * Paths a merge may not land without the user's yes on their diff (merge/control-gate.ts):
 * files that decide what the product, Claude Code, VS Code or git run or obey. Globs, matched
 * at any depth and in any letter case (a workspace may be a folder of its repository; some
 * file systems fold case). `.git*` covers git's own files (`.gitattributes`, `.gitmodules`) and
 * folders so named (`.github`: CI that runs with secrets).
 */
export const QUEUE_CONTROL_PATHS: readonly string[] = [
  '.team/**', '.tasks/**', '.worktrees/**', '.claude/**', '.mcp.json', '.vscode/**', '.devcontainer/**',
  '.devcontainer.json', '.git*', '.git*/**', '.husky/**', 'AGENTS.md', 'CLAUDE.md',
];

/**
 * The user's git settings that name code or configuration by path (`*`: any name). A path one
 * names inside an agent's writable folder (husky's `core.hooksPath = .husky/_`, an
 * `include.path = ../.gitconfig`, a filter script of the repository) would make the user's own
 * git run what an agent wrote: guarded like a control folder (git-config-paths.ts). husky 9's
 * `.husky/_` runs the scripts one folder up, so that folder is guarded with it.
 */
export const GIT_CONFIG_PATH_KEYS: readonly string[] = [
  'core.hooksPath', 'include.path', 'includeIf.*.path', 'core.fsmonitor',
  'filter.*.clean', 'filter.*.smudge', 'filter.*.process', 'diff.*.textconv', 'diff.*.command', 'merge.*.driver',
];

/**
 * The repository's git folder. A command writes only where its commits need to: the object
 * store, its own branch's ref and reflog, and its own index and worktree admin folder. Every
 * other name at the top of the git folder is read-only; an absent one is covered while the
 * command runs (a file by an empty file, a folder by an empty folder), so nothing new appears
 * there for host-side git (the product's or the user's) to obey.
 */
export const GIT_FOLDER = {
  /** Always writable (commits write objects). */
  writable: ['objects'],
  /** Read-only; `refs` and `logs` then get the command's own branch back, writable. */
  readOnly: ['config', 'hooks', 'HEAD', 'packed-refs', 'refs', 'logs', 'worktrees', 'info', 'modules', 'branches', 'remotes'],
  /**
   * Absent files covered while a command runs by a read-only file with this content (absent
   * folders by an empty folder): git reads each as saying nothing (`commondir` "." is the
   * folder itself; an empty one is an error to git). `MERGE_AUTOSTASH` names a stash that git
   * applies to the checkout when a merge or a commit finishes (`--no-autostash` included):
   * planted, it made the queue's landing write `.claude/`, `.vscode/` files past the gate.
   */
  coverFiles: { commondir: '.\n', 'config.worktree': '', 'packed-refs': '', MERGE_AUTOSTASH: '' } as Readonly<Record<string, string>>,
  /**
   * The teammates' branch folder (`refs/heads/wt`), made before a command runs when absent: a
   * branch the host makes there later (a teammate spawned while a lead's job runs) is then
   * inside a folder read-only to that job, not a new name in its writable `refs/heads`.
   */
  teammateBranches: 'wt',
  /** In a worktree's admin folder (`worktrees/<name>/`): read-only, absent ones covered. */
  worktreeAdminReadOnly: ['commondir', 'gitdir', 'config.worktree', 'MERGE_AUTOSTASH'],
} as const;

/**
 * The network of every agent's command: none of its own, only the product's proxy at
 * 127.0.0.1:`proxyPort` inside its namespace (bubblewrap: a socat bridge, bwrap.ts; a
 * container: native/netbridge.c, container/net-bridge.ts), which judges each host by its name
 * before resolving it (allowed domains, else one question per host: proxy.ts). `proxyVariables`
 * point the usual tools at it.
 */
export const NETWORK = {
  proxyPort: 3128,
  proxyVariables: ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy',
    'npm_config_proxy', 'npm_config_https_proxy', 'YARN_HTTP_PROXY', 'YARN_HTTPS_PROXY', 'GLOBAL_AGENT_HTTP_PROXY'],
  /**
   * Update checks off (npm's own, the update-notifier package's): each would ask the user about
   * the registry's host in the middle of an `npm test` that reaches nothing else.
   */
  quietVariables: { npm_config_update_notifier: 'false', NO_UPDATE_NOTIFIER: '1' } as Readonly<Record<string, string>>,
} as const;

/** The network variables of a command's environment (NETWORK): the proxy's, and update checks off. */
export function proxyVariables(): Record<string, string> {
  const url = `http://127.0.0.1:${NETWORK.proxyPort}`;
  return { ...Object.fromEntries(NETWORK.proxyVariables.map((k) => [k, url])), ...NETWORK.quietVariables };
}

/** Removed from every command's environment: the keys the product's model clients use. */
export const REMOVED_ENV = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'] as const;

/**
 * Git configuration for agents' commands (environment `GIT_CONFIG_*`): a reflog that does
 * not exist yet is not created (its folder is read-only), instead of failing the commit.
 */
export const AGENT_GIT_CONFIG: readonly (readonly [string, string])[] = [['core.logAllRefUpdates', 'false']];

/**
 * How the product runs git on the host (worktree/git.ts): nothing a repository's files can
 * name is run — no hooks, no fsmonitor, no submodule recursion, no pager, editor, ssh
 * command, external diff or text conversion — and the git folders are named explicitly
 * (`GIT_DIR`, `GIT_COMMON_DIR`), so a planted `commondir` points nowhere.
 */
export const HOST_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['submodule.recurse', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.sshCommand', 'false'],
  ['protocol.ext.allow', 'never'],
  ['maintenance.auto', 'false'],
  ['gc.auto', '0'],
];
export const HOST_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: ':', GIT_SEQUENCE_EDITOR: ':', GIT_PAGER: 'cat', GIT_SSH_COMMAND: 'false', GIT_NO_REPLACE_OBJECTS: '1',
};
/** Inherited from a parent git process (hooks, `git rebase -x`), these would point a call elsewhere. */
export const HOST_GIT_DROPPED_ENV = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_PREFIX', 'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS', 'GIT_EXEC_PATH', 'GIT_EXTERNAL_DIFF',
] as const;

/** What the host checks when a sandboxed command ends (sandbox.ts, nested-repos.ts). */
export const AFTER_RUN = {
  /** Covers made for absent git-folder names are removed (only while still the empty ones made). */
  removeCovers: true,
  /** A git repository the command made inside its folder loses its executable configuration, and the user is told. */
  neutraliseNestedRepos: true,
} as const;

/** The sections of a nested repository's git folder that make git run programs: moved aside. */
export const NESTED_REPO_EXECUTABLE = ['config', 'hooks', 'config.worktree', 'commondir', 'info', 'modules'] as const;

/**
 * Paths the file tools always ask about before changing, whatever the rules say (a deny rule
 * still refuses; docs/permissions.md): each decides what runs with the user's rights. A name
 * matches itself and, for a folder, everything under it.
 */
export const ALWAYS_ASK_PATHS: readonly { name: string; folder: boolean; why: string }[] = [
  { name: '.mcp.json', folder: false, why: '.mcp.json decides which programs start as MCP servers' },
  { name: '.claude', folder: true, why: ".claude/ holds Claude Code's settings, hooks and agents" },
  { name: '.devcontainer.json', folder: false, why: "the devcontainer decides the image teammates' containers run and what VS Code's Dev Containers runs on this machine" },
  { name: '.devcontainer', folder: true, why: "the devcontainer decides the image teammates' containers run and what VS Code's Dev Containers runs on this machine" },
];

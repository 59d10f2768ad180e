// What an agent's file and search tools act on: its folder on this machine (WorkspaceFs,
// workspace-fs.ts) or its clone in a container of its own (core/container/container-fs.ts).
// The tools see only this, so a container teammate's read_file, write_file, edit_file, glob,
// grep and list_dir reach its clone there and never the user's checkout.
import type { ReadOptions } from './file-text';
import type { WriteResult } from './workspace-fs';

/** The search tools' inputs (tools/search.ts). */
export interface GrepInput { pattern: string; path?: string | null; glob?: string | null; ignore_case?: boolean | null; max_results?: number | null }
export interface GlobInput { pattern: string; path?: string | null }

/** Searches made where the files are, when that is not this machine. */
export interface RemoteSearch {
  listDir(input: { path?: string | null }): Promise<string>;
  glob(input: GlobInput): Promise<string>;
  grep(input: GrepInput): Promise<string>;
}

export interface AgentFs {
  /** The folder as its agent knows it (a path on this machine, or in the container). */
  readonly root: string;
  /** The absolute path for `userPath`, which must stay inside the root. */
  resolve(userPath: string): Promise<string>;
  readFile(userPath: string, opts?: ReadOptions): Promise<string>;
  writeFile(userPath: string, content: string): Promise<WriteResult>;
  editFile(userPath: string, oldText: string, newText: string): Promise<WriteResult>;
  /** Set when the files are elsewhere (a container): the search tools ask it instead of walking this machine. */
  readonly remote?: RemoteSearch;
}

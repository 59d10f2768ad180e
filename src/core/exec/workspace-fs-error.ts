// The errors of the agents' file tools, whichever side of a container they act on
// (workspace-fs.ts, core/container/container-fs.ts): a code and a message naming the path as
// the model typed it.
export type WorkspaceFsErrorCode =
  | 'invalid_path' | 'outside_root' | 'protected' | 'not_found' | 'not_a_file' | 'binary'
  | 'too_large' | 'no_match' | 'ambiguous' | 'invalid_input' | 'io';

export class WorkspaceFsError extends Error {
  constructor(readonly code: WorkspaceFsErrorCode, message: string) {
    super(message);
    this.name = 'WorkspaceFsError';
  }
}

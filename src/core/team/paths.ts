// Where each piece of team state lives in the workspace (docs/file-formats.md). Names are validated
// before they ever become part of a path.
import { join } from 'node:path';
import { assertParticipantName } from '../util/names';

export class TeamPaths {
  readonly teamDir: string;
  readonly config: string;
  readonly inboxDir: string;
  readonly requestsDir: string;
  readonly transcriptsDir: string;
  readonly tasksDir: string;
  /** Process groups the hosts' agents run (docs/file-formats.md, "Process records"). */
  readonly processesDir: string;
  /** Change records of the agents' writes (docs/file-formats.md, "Changes"). */
  readonly changesDir: string;
  /** The git worktrees' index and event log (docs/file-formats.md, "Worktrees"). */
  readonly worktreesDir: string;

  constructor(readonly root: string) {
    this.teamDir = join(root, '.team');
    this.config = join(this.teamDir, 'config.json');
    this.inboxDir = join(this.teamDir, 'inbox');
    this.requestsDir = join(this.teamDir, 'requests');
    this.transcriptsDir = join(this.teamDir, 'transcripts');
    this.tasksDir = join(root, '.tasks');
    this.processesDir = join(this.teamDir, 'processes');
    this.changesDir = join(this.teamDir, 'changes');
    this.worktreesDir = join(root, '.worktrees');
  }

  inbox(name: string): string {
    return join(this.inboxDir, `${assertParticipantName(name)}.jsonl`);
  }

  /** Delivery cursor of an inbox: how far its owner has consumed it. */
  cursor(name: string): string {
    return join(this.inboxDir, `${assertParticipantName(name)}.cursor.json`);
  }

  transcript(name: string): string {
    return join(this.transcriptsDir, `${assertParticipantName(name)}.jsonl`);
  }

  request(requestId: string): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(requestId)) throw new Error(`invalid request_id ${JSON.stringify(requestId)}`);
    return join(this.requestsDir, `${requestId}.json`);
  }

  task(id: number): string {
    if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`invalid task id ${JSON.stringify(id)}`);
    return join(this.tasksDir, `task_${id}.json`);
  }
}

// The labels by which the product finds its containers again after a reload or a crash
// (docs/containers.md): a container is the team's and the agent's, never a name guessed twice.
import { createHash } from 'node:crypto';

export const LABEL_TEAM = 'agent-teams.team';
export const LABEL_AGENT = 'agent-teams.agent';
/** The workspace folder on the user's machine (which checkout the branch comes back to). */
export const LABEL_WORKSPACE = 'agent-teams.workspace';
/** The branch the container works on (`team/<agent>`). */
export const LABEL_BRANCH = 'agent-teams.branch';
/** An image the product built from a devcontainer's Dockerfile: the content hash it was built from. */
export const LABEL_CONTENT = 'agent-teams.content';

/**
 * The team's id in labels: the team's name and its workspace folder, so two workspaces with a
 * team of the same name never share containers.
 */
export function teamId(teamName: string, root: string): string {
  return `${teamName}-${createHash('sha256').update(root).digest('hex').slice(0, 8)}`;
}

/** Engines accept [a-zA-Z0-9][a-zA-Z0-9_.-]* as a container name. */
export function containerName(team: string, agent: string): string {
  return `agent-teams-${team}-${agent}`.replace(/[^a-zA-Z0-9_.-]/g, '_');
}

/** The engine's label filter for a team's containers (all teams' when absent). */
export function labelFilter(team?: string, agent?: string): { label: string[] } {
  return { label: [team ? `${LABEL_TEAM}=${team}` : LABEL_TEAM, ...(agent ? [`${LABEL_AGENT}=${agent}`] : [])] };
}

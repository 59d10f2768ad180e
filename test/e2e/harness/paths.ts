// Where things are: the repo root (tests run from out/, fixtures live in test/) and the
// Node 24 / code-server / Chromium paths written by scripts/provision-e2e.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface ProvisionedPaths {
  node: string;
  nodeRoot: string;
  codeServerRoot: string;
  codeServerEntry: string;
  chromium: string;
  nodeVersion: string;
  codeServerVersion: string;
}

/** The directory holding esbuild.mjs, found by walking up from this (compiled) file. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'esbuild.mjs'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`repo root not found above ${__dirname}`);
    dir = parent;
  }
  return dir;
}

function pathsFile(): string {
  const cache = process.env.AGENT_TEAMS_E2E_CACHE || join(homedir(), '.cache', 'agent-teams-e2e');
  return join(cache, 'paths.json');
}

function readPaths(): ProvisionedPaths | undefined {
  try {
    const paths = JSON.parse(readFileSync(pathsFile(), 'utf8')) as ProvisionedPaths;
    return [paths.node, paths.codeServerEntry, paths.chromium].every(existsSync) ? paths : undefined;
  } catch {
    return undefined;
  }
}

let cached: ProvisionedPaths | undefined;

/**
 * The provisioned tool paths. Runs the provisioning script when they are missing, so a single
 * e2e file also works under plain `node --test` (scripts/test.mjs provisions up front anyway).
 */
export function provisionedPaths(): ProvisionedPaths {
  cached ??= readPaths();
  if (cached) return cached;
  const script = join(repoRoot(), 'scripts', 'provision-e2e.mjs');
  // Output to stderr: a test file's stdout belongs to the node:test protocol.
  const result = spawnSync(process.execPath, [script], { stdio: ['ignore', 2, 2] });
  cached = readPaths();
  if (result.status !== 0 || !cached) {
    throw new Error(`e2e provisioning failed (exit ${result.status}); run: node scripts/provision-e2e.mjs`);
  }
  return cached;
}

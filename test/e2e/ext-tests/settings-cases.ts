// agentTeams.* settings read with the real vscode API (docs/security.md): the sandbox's mode
// is read from `agentTeams.sandbox.mode`, and a string written at the short name
// `agentTeams.sandbox` is honoured too, as a user following the short name would write it.
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { readSettings } from '../../../src/vscode/host/settings';
import type { Case } from './index';

/** Writes the workspace's settings.json as a user would and waits until VS Code has read it. */
async function writeSettings(root: string, values: Record<string, unknown>): Promise<void> {
  const changed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { sub.dispose(); reject(new Error('VS Code did not notice settings.json change within 10 s')); }, 10_000);
    const sub = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('agentTeams.sandbox')) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
  await mkdir(join(root, '.vscode'), { recursive: true });
  await writeFile(join(root, '.vscode', 'settings.json'), JSON.stringify(values, null, 2));
  await changed;
}

export const settingsCases: Case[] = [
  ['the sandbox mode is read from agentTeams.sandbox.mode, and from the short name agentTeams.sandbox when a user writes it there', async ({ root }) => {
    const path = join(root, '.vscode', 'settings.json');
    const before = await readFile(path, 'utf8').catch(() => undefined);
    const base = before === undefined ? {} : JSON.parse(before) as Record<string, unknown>;
    try {
      await writeSettings(root, { ...base, 'agentTeams.sandbox.mode': 'off' });
      assert.equal(readSettings().sandbox.mode, 'off');
      await writeSettings(root, { ...base, 'agentTeams.sandbox': 'required' });
      assert.equal(readSettings().sandbox.mode, 'required');
    } finally {
      if (before === undefined) await rm(path, { force: true });
      else await writeFile(path, before);
    }
  }],
];

// What an e2e test prints when it fails: what the fake model saw, the team's files, the
// extension host's log, the browser console, and last (nearest the cause, which CI output
// keeps when it cuts) what the Agent Teams views showed.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeApi } from '../../fake-api';
import type { Workbench } from './browser';
import { tail, type CodeServer } from './code-server';
import { newest } from './model-text';

export interface FailureScene {
  wb: Workbench | undefined;
  api: FakeApi | undefined;
  server: CodeServer | undefined;
  workspace: string | undefined;
}

const CONTAINER = 'agentTeams';

export async function failureReport(err: unknown, scene: FailureScene): Promise<never> {
  const { wb, api, server, workspace } = scene;
  if (wb && process.env.AGENT_TEAMS_E2E_SHOTS) {
    await wb.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, `failure-${Date.now()}.png`)).catch(() => undefined);
  }
  const seen = (api?.requests() ?? []).map((r) => `#${r.seq} ${r.agent} ${r.outcome ?? '…'} ${newest(r).slice(-200).replace(/\n/g, ' ')}`).join('\n');
  const read = (rel: string) => (workspace ? readFile(join(workspace, rel), 'utf8').catch((e: unknown) => `(${String(e)})`) : Promise.resolve(''));
  const inboxes = workspace ? await readdir(join(workspace, '.team', 'inbox')).catch(() => [] as string[]) : [];
  const mail = (await Promise.all(inboxes.filter((f) => f.endsWith('.jsonl')).map(async (f) => `${f}:\n${tail(await read(`.team/inbox/${f}`), 12)}`))).join('');
  const sections: Array<[string, string]> = [
    ['fake-api requests', seen],
    ['mailboxes', mail],
    ['.team/config.json', await read('.team/config.json')],
    ['extension host', server ? tail(server.extensionHostLogs(), 60) : ''],
    ['browser', tail(wb?.consoleLog() ?? '', 30)],
    ['views', wb ? await wb.uiState(CONTAINER) : ''],
  ];
  const report = sections.map(([title, text]) => `--- ${title} ---\n${text}`).join('\n');
  throw new Error(`${(err as Error).message}\n${report}`, { cause: err });
}

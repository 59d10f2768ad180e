// Proves the e2e harness on a fixture extension: the workbench shows its container, tree,
// webview and command, notifications can be clicked, and extension-host suites report pass and fail.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/code-server';
import { runExtensionHostTests } from './harness/ext-host-tests';
import { repoRoot } from './harness/paths';

const FIXTURE = join(repoRoot(), 'test', 'e2e', 'fixtures', 'hello-ext');

describe('e2e harness: workbench UI', () => {
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;

  before(async () => {
    server = await startCodeServer({ extensionPath: FIXTURE });
    wb = await openWorkbench(server.url);
    await wb.waitForContainer('Hello Fixture');
  });

  after(async () => {
    await wb?.close();
    await server?.stop();
  });

  it('shows the fixture container and its tree rows', async () => {
    await wb!.openContainer('Hello Fixture');
    const alice = wb!.treeRow('helloFixture', 'alice');
    await alice.waitFor();
    assert.match((await alice.getAttribute('aria-label')) ?? '', /alice/);
    await wb!.treeRow('helloFixture', 'bob').waitFor();
  });

  it('reads the content of a webview view', async () => {
    await wb!.openContainer('Hello Fixture');
    const greeting = wb!.webview('fixture.hello').locator('#greeting');
    assert.equal(await greeting.textContent(), 'Hello from the webview');
  });

  it('runs a command from the palette and clicks its notification button', async () => {
    await wb!.runCommand('Hello Fixture: Say Hi');
    const hi = wb!.notification('Hi from the fixture');
    await hi.getByRole('button', { name: 'Wave back' }).click();
    await wb!.notification('The fixture waves back').waitFor();
    await hi.waitFor({ state: 'detached' });
  });

  it('lists notifications in the notification center', async () => {
    const center = await wb!.showNotificationCenter();
    await center.getByText('The fixture waves back').waitFor();
  });
});

describe('e2e harness: extension-host tests', () => {
  let server: CodeServer | undefined;

  before(async () => {
    server = await startCodeServer({ smokeTestDriver: true });
  });

  after(async () => {
    await server?.stop();
  });

  const run = (testsFile: string) => runExtensionHostTests({
    server, extensionDevelopmentPath: FIXTURE, extensionTestsPath: join(FIXTURE, 'tests', testsFile),
  });

  it('resolves 0 when run() passes', async () => {
    assert.equal(await run('index.js'), 0);
  });

  it('resolves 1 when run() throws', async () => {
    assert.equal(await run('failing.js'), 1);
  });
});

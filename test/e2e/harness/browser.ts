// Drives the code-server workbench in Debian's Chromium through playwright-core. Selectors
// and waits follow /work/shared/E2E.md; every helper waits for a condition, never a fixed time.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { onExitCleanup } from './cleanup';
import { provisionedPaths } from './paths';

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Workbench start (5–9 s on 2 cores) plus extension activation, with headroom for a loaded machine:
 *  a timeout only costs time when something is already wrong. */
const STARTUP_TIMEOUT_MS = 120_000;
const ACTION_TIMEOUT_MS = 30_000;

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  /** The page's console messages and errors so far (last 500), for failure reports. */
  consoleLog(): string;
  close(): Promise<void>;
}

/** A fresh Chromium with its own profile dir and one blank page. */
export async function launchBrowser(opts: { headless?: boolean } = {}): Promise<BrowserSession> {
  const profile = await mkdtemp(join(tmpdir(), 'agent-teams-e2e-chromium-'));
  const forget = onExitCleanup(() => rmSync(profile, { recursive: true, force: true }));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: provisionedPaths().chromium, headless: opts.headless ?? true, args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    forget();
    throw err;
  }
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const page = context.pages()[0] ?? await context.newPage();
  const consoleLog = collectConsole(page);
  const close = async () => {
    await context.close().catch(() => undefined);
    await rm(profile, { recursive: true, force: true });
    forget();
  };
  return { context, page, consoleLog, close };
}

function collectConsole(page: Page): () => string {
  const lines: string[] = [];
  const add = (line: string) => { lines.push(line); if (lines.length > 500) lines.shift(); };
  page.on('console', (m) => add(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => add(`[pageerror] ${e.message}`));
  return () => lines.join('\n');
}

/** Opens the workbench at `url` in a fresh browser and waits for it to render. */
export async function openWorkbench(url: string, opts: { headless?: boolean; initScript?: [(arg: string) => void, string] } = {}): Promise<Workbench> {
  const session = await launchBrowser(opts);
  try {
    // Runs in every page load before the page's own scripts (a reload included).
    if (opts.initScript) await session.context.addInitScript(opts.initScript[0], opts.initScript[1]);
    // Not waiting for 'load': that also waits on slow side requests and says nothing about the workbench.
    await session.page.goto(url, { waitUntil: 'commit', timeout: STARTUP_TIMEOUT_MS });
    await session.page.locator('.monaco-workbench').waitFor({ timeout: STARTUP_TIMEOUT_MS });
  } catch (err) {
    await session.close();
    throw err;
  }
  return new Workbench(session);
}

export class Workbench {
  readonly page: Page;

  constructor(private readonly session: BrowserSession) {
    this.page = session.page;
  }

  /**
   * Waits for a view container's activity-bar entry. Commands are registered 2–3 s after the
   * workbench appears, so wait for this before pressing keys.
   */
  async waitForContainer(title: string): Promise<Locator> {
    // The tab (li) rather than its inner link: the tab carries aria-expanded.
    const tab = this.page.locator(`.activitybar li.action-item:has(> a.action-label[aria-label=${cssString(title)}])`);
    await tab.waitFor({ timeout: STARTUP_TIMEOUT_MS });
    return tab;
  }

  /** Shows a view container; clicking an already active entry would hide the sidebar instead. */
  async openContainer(title: string): Promise<void> {
    const tab = await this.waitForContainer(title);
    if ((await tab.getAttribute('aria-expanded')) !== 'true') await tab.click();
    await this.page.locator(`.activitybar li.action-item[aria-expanded="true"]:has(> a[aria-label=${cssString(title)}])`).waitFor();
  }

  /**
   * Runs a command by its palette title ("Category: Title"), reopening the palette until the
   * command is listed: right after start or a reload the activity-bar entry can come from cache
   * before the extension's commands are registered, and an open palette does not pick up
   * commands registered later.
   */
  async runCommand(title: string, timeoutMs = 90_000): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    const end = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.page.keyboard.press('F1');
        await input.fill(`>${title}`, { timeout: 10_000 });
        // The palette matches fuzzily: wait until our command is the focused row, not just any row.
        await this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title }).waitFor({ timeout: 10_000 });
        await input.press('Enter');
        return;
      } catch (err) {
        if (Date.now() > end) throw err;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  /** Waits for the input box or quick pick whose title or prompt says `text` (not the palette's rows). */
  async asked(text: string): Promise<void> {
    await this.page.locator('.quick-input-widget .quick-input-title, .quick-input-widget .quick-input-message')
      .filter({ hasText: text, visible: true }).first().waitFor();
  }

  /** Answers the input box asking `text` and presses Enter. */
  async answer(text: string, value: string): Promise<void> {
    await this.asked(text);
    await this.quickInput().fill(value);
    await this.quickInput().press('Enter');
  }

  /** In the quick pick titled `title`, picks the row labelled `label` after filtering by it. */
  async pick(title: string, label: string): Promise<void> {
    await this.asked(title);
    await this.quickInput().fill(label);
    await this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: label }).waitFor();
    await this.quickInput().press('Enter');
  }

  /** The text field of the open input box or quick pick. */
  quickInput(): Locator {
    return this.page.locator('.quick-input-widget input.input').first();
  }

  /** Right-clicks `target` (e.g. a tree row) and runs the context menu item labelled `item`. */
  async contextMenu(target: Locator, item: string): Promise<void> {
    await target.click({ button: 'right' });
    // The workbench's menus live in a shadow root; role selectors pierce it.
    const entry = this.page.getByRole('menuitem', { name: item });
    await entry.waitFor();
    // Hover (which makes it the menu's focused item) and Enter: a click right after the menu
    // opened is sometimes swallowed, and Enter on an element the menu did not focus itself
    // does nothing. Until the menu closes, since running the item is what closes it.
    for (let attempt = 1; ; attempt++) {
      await entry.hover();
      await this.page.keyboard.press('Enter');
      try {
        await entry.waitFor({ state: 'hidden', timeout: 2_000 });
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
      }
    }
  }

  /** Rows of a tree view inside view container `containerId` whose accessible label contains `label`. */
  treeRow(containerId: string, label: string): Locator {
    // Scoped to the container: unscoped rows would also match the Explorer.
    const container = `[id=${cssString(`workbench.view.extension.${containerId}`)}]`;
    return this.page.locator(`${container} .monaco-list-row[aria-label*=${cssString(label)}]`);
  }

  /** The content frame of the webview of `extensionId` (<publisher>.<name>). */
  webview(extensionId: string): FrameLocator {
    return this.page
      .frameLocator(`iframe.webview.ready[src*=${cssString(`extensionId=${extensionId}`)}]`)
      .frameLocator('iframe#active-frame');
  }

  /** A visible notification, as a toast or in the notification center; its buttons are getByRole('button'). */
  notification(text: string): Locator {
    return this.page
      .locator('.notifications-toasts .notification-list-item, .notifications-center .notification-list-item')
      .filter({ hasText: text, visible: true });
  }

  /** Opens the notification center (toasts hide while it is open and in extension-test mode). */
  async showNotificationCenter(): Promise<Locator> {
    const center = this.page.locator('.notifications-center.visible');
    if (!(await center.isVisible())) await this.runCommand('Notifications: Show Notifications');
    await center.waitFor();
    return center;
  }

  /** The modal dialog (e.g. the Workspace Trust prompt); its buttons are getByRole('button'). */
  dialog(): Locator {
    return this.page.locator('.monaco-dialog-box');
  }

  async screenshot(path: string): Promise<void> {
    await this.page.screenshot({ path });
  }

  consoleLog(): string {
    return this.session.consoleLog();
  }

  /** For failure reports: the active view container, its panes (expanded or not) and their rows as read aloud. */
  async uiState(containerId: string): Promise<string> {
    return this.page.evaluate((id) => {
      const out: string[] = [];
      const active = document.querySelector('.activitybar li.action-item.checked a');
      out.push(`active container: ${active?.getAttribute('aria-label') ?? '(none)'}`);
      const root = document.getElementById(`workbench.view.extension.${id}`);
      if (!root) return [...out, `container ${id}: not in the page`].join('\n');
      for (const pane of Array.from(root.querySelectorAll('.pane'))) {
        const header = pane.querySelector('.pane-header');
        const rect = pane.getBoundingClientRect();
        out.push(`pane "${header?.getAttribute('aria-label') ?? '?'}" expanded=${header?.getAttribute('aria-expanded')} height=${Math.round(rect.height)}`);
        for (const row of Array.from(pane.querySelectorAll('.monaco-list-row'))) out.push(`  row: ${row.getAttribute('aria-label')}`);
      }
      return out.join('\n');
    }, containerId).catch((err: unknown) => `ui state unavailable: ${String(err)}`);
  }

  /**
   * Kills the browser as a crash or `kill -9` would: no unload, no goodbye to the server, so
   * the window's VS Code backend lives on (code-server keeps it for a reconnection). Then
   * removes the profile.
   */
  async kill(): Promise<void> {
    const cdp = await this.page.context().newCDPSession(this.page);
    // The browser is gone before it can answer.
    await cdp.send('Browser.crash').catch(() => undefined);
    await this.session.close();
  }

  async close(): Promise<void> {
    await this.session.close();
  }
}

/** A quoted CSS string for attribute selectors. */
function cssString(value: string): string {
  return JSON.stringify(value);
}

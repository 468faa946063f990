// Starts a real VS Code (code-server) with the packaged extension installed into a fresh profile,
// and opens its workbench in headless Chromium (test/browser.ts). Shared by the e2e suite and the bench.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Frame, Locator, Page } from 'playwright-core';
import { keyVariables } from '../../engine/llm/provider-settings';
import { launchChromium } from '../browser';
import { node24 } from '../node24';

/** code-server's entry script: $CODE_SERVER or the CI cache (scripts/ensure-code-server.sh). */
function findCodeServer(): string {
  const candidates = [process.env.CODE_SERVER, '/opt/attractor-code-server/bin/code-server'];
  const found = candidates.find((candidate): candidate is string => candidate !== undefined && fs.existsSync(candidate));
  if (!found) throw new Error(`code-server not found (tried ${candidates.filter(Boolean).join(', ')}); run scripts/ensure-code-server.sh`);
  return fs.realpathSync(found);
}

export interface CodeServer {
  readonly url: string;
  readonly userDataDir: string;
  readonly workspace: string;
  readonly page: Page;
  readonly browser: Browser;
  /** kill -9 of code-server and its extension host, as when VS Code dies: nothing in it says goodbye. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly vsix: string;
  /** More .vsix files installed beside it (test-only extensions). */
  readonly alsoInstall?: readonly string[];
  /** Files of the workspace folder, by relative path. */
  readonly files: Readonly<Record<string, string>>;
  readonly userSettings?: Readonly<Record<string, unknown>>;
  /** false: the workspace opens in restricted mode (workspace trust on, no startup prompt). */
  readonly trusted?: boolean;
}

export async function startCodeServer(options: StartOptions): Promise<CodeServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-e2e-'));
  const userDataDir = path.join(root, 'user-data');
  const extensionsDir = path.join(root, 'extensions');
  const workspace = path.join(root, 'workspace');
  for (const [file, text] of Object.entries(options.files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    fs.writeFileSync(path.join(workspace, file), text);
  }
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'chat.disableAIFeatures': true,
        'workbench.tips.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        'extensions.ignoreRecommendations': true,
        'security.workspace.trust.enabled': options.trusted === false,
        'security.workspace.trust.startupPrompt': 'never',
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'editor.minimap.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        ...options.userSettings,
      },
      null,
      2,
    ),
  );
  const codeServer = findCodeServer();
  const common = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  const node = node24();
  for (const vsix of [options.vsix, ...(options.alsoInstall ?? [])]) {
    const install = spawnSync(node, [codeServer, ...common, '--install-extension', vsix], { encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`installing ${vsix} failed:\n${install.stdout}\n${install.stderr}`);
  }
  const port = await freePort();
  const server = spawn(node, [codeServer, ...common, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', ...(options.trusted === false ? [] : ['--disable-workspace-trust']), workspace], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    // No provider key reaches VS Code: LLM nodes can only run on the editor's models.
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !keyVariables.includes(name))), PATH: `${path.dirname(node)}:${process.env.PATH ?? ''}` },
  });
  const serverLog: string[] = [];
  server.stdout?.on('data', (chunk: Buffer) => serverLog.push(chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => serverLog.push(chunk.toString()));
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
  let browser: Browser | undefined;
  const stop = async (): Promise<void> => {
    await browser?.close().catch(() => undefined);
    await killGroup(server);
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, server, serverLog);
    browser = await launchChromium(['--no-sandbox', '--disable-gpu']);
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    // The workbench page is megabytes of script: on a loaded machine its load event takes minutes, like the workbench itself.
    await page.goto(url, { timeout: 120_000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 120_000 });
    return { url, userDataDir, workspace, page, browser, crash: () => killGroup(server, 'SIGKILL'), stop };
  } catch (error) {
    // Whatever started must not outlive the failed start.
    await stop();
    throw error;
  }
}

/** The Attractor output channel as VS Code logged it to the profile's logs folder. */
export function readAttractorLog(userDataDir: string): string {
  const logs = path.join(userDataDir, 'logs');
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'Attractor.log') found.push(full);
    }
  };
  walk(logs);
  return found.map((file) => fs.readFileSync(file, 'utf8')).join('\n');
}

/** Quick Open (Ctrl+P) a workspace file and wait for its editor. */
export async function openFile(page: Page, name: string, expectText: string): Promise<void> {
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget:not([style*="display: none"]) input');
  await page.keyboard.type(name);
  // Wait for the search to list the file: recently opened files are listed before it answers.
  // Clicked, not Enter: the highlighted row may still be a recently opened file (a run's snapshot file).
  await page.locator(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`).first().click();
  await page.waitForSelector(`.monaco-editor .view-lines:has-text("${expectText}")`);
}

/**
 * Runs a command from the palette by its title. Typed as `typed` (default: the whole title; the
 * palette's filter does not match across a hyphen, so such titles are typed up to it). Asks again when
 * VS Code has not listed the command yet: right after start-up, commands behind a `when` clause such
 * as `isWorkspaceTrusted` are missing for a moment.
 */
export async function runCommand(page: Page, title: string, typed = title): Promise<void> {
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${title}"]`).first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget:not([style*="display: none"]) input');
    await page.keyboard.type(typed);
    try {
      await row.waitFor({ timeout: 20_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      await page.keyboard.press('Escape');
    }
  }
  await row.click();
}

/**
 * Clicks "▶ Run" above the digraph of the open file whose text shows `expectText`. VS Code now and
 * then renders no lenses for an editor opened while the extension was activating; such an editor is
 * closed and opened afresh, which asks for its lenses again.
 */
export async function clickRunLens(page: Page, name: string, expectText: string): Promise<void> {
  const lens = page.locator(`.monaco-editor:has(.view-lines:has-text("${expectText}")) .codelens-decoration a:has-text("Run")`).first();
  for (let attempt = 1; ; attempt++) {
    try {
      await lens.click({ timeout: 20_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
    await page.click(`.monaco-editor .view-lines:has-text("${expectText}")`);
    await page.keyboard.press('Control+W');
    await openFile(page, name, expectText);
  }
}

/**
 * Chooses an item of a list row's context menu. A right-click while the list re-renders can open the
 * menu of no row, so the menu is opened again until it offers the item. (Callers wait until the list
 * shows the state they mean: it reuses row elements, so a right-click during a change of order can reach
 * another row's menu.) A click that reaches the menu while it is still opening is swallowed on a busy
 * machine (it stays open with the item focused), so the choice counts only once the menu has closed;
 * until then the focused item is taken with Enter.
 */
export async function chooseFromContextMenu(page: Page, row: Locator, item: string): Promise<void> {
  const action = page.locator(`.monaco-menu .action-item:has-text("${item}")`);
  for (let attempt = 1; ; attempt++) {
    await row.click({ button: 'right' });
    if (await action.waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
    await page.keyboard.press('Escape');
    if (attempt === 5) throw new Error(`the row's context menu never offered "${item}"`);
  }
  await action.click();
  const menu = page.locator('.monaco-menu');
  try {
    await menu.waitFor({ state: 'hidden', timeout: 5_000 });
  } catch {
    await action.hover();
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'hidden', timeout: 10_000 });
  }
}

/** Where the e2e suites keep their screenshots (named in the order the suites take them). */
export const screenshots = path.resolve(__dirname, '..', '..', 'docs', 'e2e');

/** Answers Attractor's one question before LLM nodes first use a provider's models (extension/lm/model-consent.ts). */
export async function allowEditorModels(page: Page): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box:has-text("Let Attractor run LLM nodes on")');
  await dialog.waitFor({ timeout: 60_000 });
  await dialog.locator('.monaco-button:has-text("Allow")').click();
  await dialog.waitFor({ state: 'detached', timeout: 30_000 });
}

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: path.join(screenshots, `${name}.png`) });
  console.log(`  ✓ ${name}`);
}

/**
 * One scenario in a fresh code-server: on failure it keeps `failure-NAME.png` and prints what explains
 * the failure (the Attractor log unless `explain` says otherwise); code-server always stops.
 */
export async function inCodeServer(name: string, options: StartOptions, scenario: (vscode: CodeServer) => Promise<void>, explain = (vscode: CodeServer): string => readAttractorLog(vscode.userDataDir)): Promise<void> {
  const vscode = await startCodeServer(options);
  try {
    await scenario(vscode);
  } catch (error) {
    fs.mkdirSync(screenshots, { recursive: true });
    await vscode.page.screenshot({ path: path.join(screenshots, `failure-${name}.png`) }).catch(() => undefined);
    console.error(explain(vscode));
    throw error;
  } finally {
    await vscode.stop();
  }
}

/** Polls `probe` until it gives a value; throws naming `what` when `timeoutMs` passes first. */
export async function waitUntil<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const value = await waitFor(probe, timeoutMs);
  if (value === undefined) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  return value;
}

/** Polls `probe` every 250 ms until it gives a value or `timeoutMs` passes (then undefined). */
export async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Ctrl+G to a one-based line of the active editor. */
export async function goToLine(page: Page, line: number): Promise<void> {
  await page.keyboard.press('Control+G');
  await page.keyboard.type(String(line));
  await page.keyboard.press('Enter');
}

/** A notification with `text`: a toast, or (a toast can hide again under load before it is seen) the notification centre. */
export async function waitForNotification(page: Page, text: string): Promise<void> {
  await page.waitForSelector(`.notifications-toasts:has-text("${text}")`, { timeout: 60_000 }).catch(async () => {
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+Shift+N');
    await page.waitForSelector(`.notifications-center:has-text("${text}")`, { timeout: 10_000 });
  });
}

/**
 * The Debug Console's lines, top to bottom, as VS Code renders them. The panel is left maximized:
 * the console is a virtual list that renders only the rows in view.
 */
export async function debugConsoleLines(page: Page): Promise<string[]> {
  await runCommand(page, 'Focus on Debug Console View');
  await page.waitForSelector('.repl .monaco-list-row');
  if ((await page.locator('.part.panel.maximized, .monaco-workbench.maximized-panel').count()) === 0) await runCommand(page, 'View: Toggle Maximized Panel');
  await page.waitForTimeout(500); // the list re-lays out its rows for the new height
  return page.locator('.repl .monaco-list-row').evaluateAll((rows) =>
    rows
      .map((row) => ({ top: Number.parseFloat((row as HTMLElement).style.top || '0'), text: (row as HTMLElement).innerText.replace(/\u00a0/g, ' ').trim() }))
      .sort((a, b) => a.top - b.top)
      .map((row) => row.text),
  );
}

/** The first frame (webviews nest two deep) holding `selector`. */
export async function frameWith(page: Page, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const frame of page.frames()) {
      const count = await frame.locator(selector).count().catch(() => 0);
      if (count > 0) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no frame shows ${selector} after ${timeoutMs} ms`);
    await page.waitForTimeout(250);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForHttp(url: string, server: ChildProcess, log: string[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`code-server exited (${server.exitCode}):\n${log.join('')}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`code-server did not answer ${url}:\n${log.join('')}`);
}

async function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

/** An e2e suite's scenarios in the order they run: a name, the scenario, and the line it prints when it passed. */
export type Scenarios = ReadonlyArray<readonly [name: string, run: () => Promise<void>, passed: string]>;

/** Runs the scenarios named on the command line (all when none is), in order; an unknown name fails first. */
export function runScenarios(scenarios: Scenarios, only: readonly string[] = process.argv.slice(2)): void {
  const run = async (): Promise<void> => {
    const unknown = only.filter((name) => !scenarios.some(([known]) => known === name));
    if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${scenarios.map(([name]) => name).join(', ')}`);
    for (const [name, scenario, passed] of scenarios) {
      if (only.length > 0 && !only.includes(name)) continue;
      await scenario();
      console.log(passed);
    }
  };
  run().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}

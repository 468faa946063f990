// The one headless Chromium of every browser test, bench and screenshot script: $CHROMIUM, else
// Debian's /usr/bin/chromium, else the Chromium that @sparticuz/chromium ships in the npm registry
// (unpacked once per version into the temp directory). A browser that cannot start fails at once
// with its path and the reason; it never leaves the caller waiting.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const LAUNCH_TIMEOUT_MS = 30_000;

interface ChromiumBinary {
  readonly executablePath: string;
  readonly source: string;
}

/**
 * Launches headless Chromium with playwright's flags and `args`. Not with @sparticuz/chromium's own
 * flags, made for AWS Lambda: --single-process takes the browser down when a page closes, and
 * --disable-web-security would weaken the CSP and same-origin rules the webview tests check.
 */
export async function launchChromium(args: readonly string[] = []): Promise<Browser> {
  const binary = findChromium();
  try {
    return await chromium.launch({ executablePath: binary.executablePath, args: [...args], timeout: LAUNCH_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`Chromium (${binary.source}, ${binary.executablePath}) did not start: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function findChromium(): ChromiumBinary {
  const fromEnv = process.env.CHROMIUM;
  if (fromEnv) return { executablePath: fromEnv, source: '$CHROMIUM' };
  if (fs.existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, source: 'system' };
  return { executablePath: unpackedSparticuzChromium(), source: '@sparticuz/chromium' };
}

/**
 * The path of @sparticuz/chromium's binary, unpacked beside its libraries. The package unpacks into
 * $TMPDIR and takes a present file for a finished one, so concurrent test files would launch each
 * other's half-written binary: each unpacks into a private directory (a child process with its own
 * TMPDIR) and renames it into place; the first rename wins.
 */
function unpackedSparticuzChromium(): string {
  const entry = require.resolve('@sparticuz/chromium');
  const packageJson = path.join(path.dirname(entry), '..', 'package.json');
  const { version } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { version: string };
  const home = path.join(os.tmpdir(), `attractor-chromium-${version}`);
  const binary = path.join(home, 'chromium');
  if (fs.existsSync(binary)) return binary;
  const staging = fs.mkdtempSync(`${home}.staging-`);
  try {
    const unpack = spawnSync(process.execPath, ['--input-type=module', '-e', `const { default: chromium } = await import(${JSON.stringify(pathToFileURL(entry).href)}); await chromium.executablePath();`], {
      env: { ...process.env, TMPDIR: staging },
      encoding: 'utf8',
    });
    if (unpack.status !== 0) throw new Error(`unpacking @sparticuz/chromium failed: ${unpack.stderr}`);
    fs.renameSync(staging, home);
  } catch (error) {
    if (!fs.existsSync(binary)) throw error;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

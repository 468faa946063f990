// The Node 24 binary of the tools that need it (code-server, dot-language-support), by its explicit
// path: scripts/ensure-node24.sh installs it once outside node_modules. Everything else runs on the
// system Node.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const script = path.resolve(__dirname, '..', 'scripts', 'ensure-node24.sh');

export function node24(): string {
  return execFileSync(script, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

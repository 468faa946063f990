// `npm run bench`: runs every bench/*.bench.ts (each default-exports an async function returning
// a BenchReport), prints the figures, and merges them into bench/results.json by report name.
import fs from 'node:fs';
import path from 'node:path';
import type { BenchReport } from './report';

// The package is CommonJS (no "type": "module"), so tsx loads this file as CJS: no import.meta, no top-level await.
const dir = __dirname;
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
const resultsPath = path.join(dir, 'results.json');
const results: Record<string, BenchReport & { measuredAt: string }> = fs.existsSync(resultsPath) ? JSON.parse(fs.readFileSync(resultsPath, 'utf8')) : {};

async function main(): Promise<void> {
  for (const file of files) {
    const module = (await import(path.join(dir, file))) as { default: () => Promise<BenchReport | BenchReport[]> };
    const reports = [await module.default()].flat();
    for (const report of reports) {
      console.log(`\n## ${report.name}`);
      for (const [key, value] of Object.entries(report.figures)) console.log(`  ${key.padEnd(48)} ${value}`);
      if (report.notes) console.log(`  (${report.notes})`);
      results[report.name] = { ...report, measuredAt: new Date().toISOString() };
    }
  }
  fs.writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), resultsPath)}`);
}

void main();

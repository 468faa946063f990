// Runs under Node 24 (dot-language-support needs Node >= 22): parse + validate and completion
// timings (wall, and CPU for parse + validate) for the same files, printed as JSON. argv: a JSON list of {file, offsets}
// (or `once FILE`).
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import dotLanguageSupport from 'dot-language-support';
import { TextDocument } from 'vscode-languageserver-textdocument';

const { createService } = dotLanguageSupport;

function median(fn, runs = 7, warmup = 2, clock = 'wall') {
  for (let k = 0; k < warmup; k++) fn();
  const times = [];
  for (let k = 0; k < runs; k++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    fn();
    const cpu = process.cpuUsage(cpuStart);
    times.push(clock === 'cpu' ? (cpu.user + cpu.system) / 1000 : performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)].toFixed(3));
}

const service = createService();
// `once FILE`: one parse + validate in a fresh process (the cold-process bench times the whole process).
if (process.argv[2] === 'once') {
  const document = TextDocument.create(`file://${process.argv[3]}`, 'dot', 1, fs.readFileSync(process.argv[3], 'utf8'));
  service.validateDocument(document, service.parseDocument(document));
  process.exit(0);
}
const results = JSON.parse(process.argv[2]).map(({ file, offsets }) => {
  const document = TextDocument.create(`file://${file}`, 'dot', 1, fs.readFileSync(file, 'utf8'));
  const validate = () => service.validateDocument(document, service.parseDocument(document));
  const diagnostics = median(validate);
  const diagnosticsCpu = median(validate, 7, 2, 'cpu');
  const completions = offsets.map((offset) =>
    median(() => service.getCompletions(document, service.parseDocument(document), document.positionAt(offset))),
  );
  return { file, diagnostics, diagnosticsCpu, completions };
});
process.stdout.write(JSON.stringify(results));

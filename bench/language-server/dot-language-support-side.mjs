// Runs under Node 24 (dot-language-support needs Node >= 22): parse + validate and completion
// timings for the same files, printed as JSON. argv: a JSON list of {file, offsets}.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import dotLanguageSupport from 'dot-language-support';
import { TextDocument } from 'vscode-languageserver-textdocument';

const { createService } = dotLanguageSupport;

function median(fn, runs = 7, warmup = 2) {
  for (let k = 0; k < warmup; k++) fn();
  const times = [];
  for (let k = 0; k < runs; k++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length / 2)].toFixed(3));
}

const service = createService();
const results = JSON.parse(process.argv[2]).map(({ file, offsets }) => {
  const document = TextDocument.create(`file://${file}`, 'dot', 1, fs.readFileSync(file, 'utf8'));
  const diagnostics = median(() => service.validateDocument(document, service.parseDocument(document)));
  const completions = offsets.map((offset) =>
    median(() => service.getCompletions(document, service.parseDocument(document), document.positionAt(offset))),
  );
  return { file, diagnostics, completions };
});
process.stdout.write(JSON.stringify(results));

import crypto from 'node:crypto';
import path from 'node:path';
import { READ_LIMITS, readFileChecked } from '../engine/io/read-file-checked';
import type { Interviewer } from '../engine/runtime/interviewer';
import type { LaunchOptions, LaunchResult } from '../engine/runtime/launch';
import { launchServed } from './launch-served';
import type { ListenTarget } from './pipeline-server';
import { PipelineServer } from './pipeline-server';
import { DEFAULT_MAX_BODY_BYTES } from '../host/serve/serve-defaults';
import { ServedRun } from './served-run';
import { checkSubmission } from './submission-check';
import { writeServedMarker } from '../engine/runtime/run-markers';

/**
 * `attractor run --serve`: the run as `launchPipelineFile` runs it, while the server's API follows
 * it (no token: loopback or a Unix socket only). Gates are asked over HTTP and by `interviewer`
 * (the terminal) if given; the first answer wins. The server stops when the run ends.
 */
export async function launchServedFile(
  file: string,
  target: ListenTarget,
  options: Omit<LaunchOptions, 'interviewer'> & { readonly interviewer?: Interviewer; readonly attachLeaseMs: number },
  announce: (url: string) => void,
): Promise<LaunchResult> {
  let source: string;
  try {
    source = readFileChecked(file, READ_LIMITS.pipeline);
  } catch (error) {
    return { kind: 'refused', diagnostics: [], reason: (error as Error).message };
  }
  const sourcePath = path.resolve(file);
  const run = new ServedRun({ id: crypto.randomUUID(), source, sourcePath, cwd: options.cwd, logsRoot: options.logsRoot, attachLeaseMs: options.attachLeaseMs, continuable: false }, options.events);
  const server = new PipelineServer({ maxBodyBytes: DEFAULT_MAX_BODY_BYTES });
  server.adopt(run);
  const url = await server.listen(target);
  try {
    announce(`${url}/pipelines/${run.spec.id}`);
    const admission = launchServed(run, checkSubmission({ source, sourcePath, params: options.params ?? {} }), {
      backend: options.backend,
      params: options.params ?? {},
      ...(options.interviewer ? { interviewer: options.interviewer } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.defaultMaxParallel === undefined ? {} : { defaultMaxParallel: options.defaultMaxParallel }),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.runner ? { runner: options.runner } : {}),
    });
    if (admission.kind === 'refused') return admission;
    writeServedMarker(options.logsRoot, { served_id: run.spec.id });
    return { kind: 'ran', result: await run.result, warnings: admission.warnings };
  } finally {
    await server.close();
  }
}

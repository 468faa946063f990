// The HTTP server face (`attractor serve`, `attractor run --serve`): what the CLI starts it with.
export { loadOrCreateToken, isLoopback } from './bearer-token';
export { connectionsWithin, openFileLimit } from './connection-cap';
export { PipelineServer, type Launcher, type ListenTarget } from './pipeline-server';
export { defaultStateDir, QueuedSubmissions } from './queued-submissions';
export { Roots } from './roots';
export { launchServedFile } from './serve-one-run';
export { submissionChecker } from './submission-checker';

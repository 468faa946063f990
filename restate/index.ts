// The Restate worker face (`attractor worker`): what the CLI starts a worker with.
export { serveWorker } from './worker-endpoint';

// `attractor serve --max-runs 2 --max-queued 1` walking its runs here: the admission scenario.
import { describe, it } from 'node:test';
import { admissionScenario } from './admission-scenario';
import { started, workspaceWith } from './served-in-tests';

describe('attractor serve admission', () => {
  it('counts only runs that hold a slot, queues submissions (listed with their place, 503 past the queue), and queues an answered run while the slots are taken', async () => {
    const dir = workspaceWith('attractor-serve-admission-', {});
    const { url } = await started(dir, '--max-runs', '2', '--max-queued', '1');
    await admissionScenario(url, dir);
  });
});

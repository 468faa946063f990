import type { Handler } from './handler';

/** Start, exit and conditional nodes do nothing; their SUCCESS is structural, hence explicit (ledger §25). */
export const noopHandler = (what: string): Handler => ({
  async execute({ node }) {
    return { status: 'success', isExplicit: true, notes: `${what}: ${node.id}` };
  },
});

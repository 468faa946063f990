import { childContextSeed } from '../model/child-context';
import { stringAttr } from '../model/attribute-readers';
import type { Handler } from './handler';

/** Ledger shape=folder: the child graph in dot_file runs as this one node, on a clone of the context plus the node's `context.*` attributes. */
export const subPipelineHandler: Handler = {
  async execute({ node, context, services }) {
    const dotFile = stringAttr(node, 'dot_file');
    if (!dotFile) return { status: 'fail', isExplicit: false, failureReason: `folder node ${node.id} has no dot_file` };
    return services.runChildPipeline(dotFile, context.clone(), node.id, { params: childContextSeed(node, 'pipeline') });
  },
};

import { codergenHandler } from './codergen';
import { fanInHandler } from './fan-in';
import { HandlerRegistry } from './handler';
import { humanHandler } from './human';
import { managerLoopHandler } from './manager-loop';
import { parallelHandler } from './parallel';
import { subPipelineHandler } from './sub-pipeline';
import { noopHandler } from './structural';
import { toolHandler } from './tool';

/** The built-in handlers by type (canonical Appendix B); codergen is also the fallback. */
export function createHandlerRegistry(): HandlerRegistry {
  return new HandlerRegistry(codergenHandler)
    .register('start', noopHandler('start'))
    .register('exit', noopHandler('exit'))
    .register('conditional', noopHandler('conditional'))
    .register('codergen', codergenHandler)
    .register('tool', toolHandler)
    .register('wait.human', humanHandler)
    .register('parallel', parallelHandler)
    .register('parallel.fan_in', fanInHandler)
    .register('stack.manager_loop', managerLoopHandler)
    .register('pipeline', subPipelineHandler);
}

import { TargetRefusal } from '../host/run-target';

// The refusals a run here and a run on a server answer alike.

/** setVariable on anything but a paused node's Context. */
export function notEditable(): TargetRefusal {
  return new TargetRefusal(1008, 'only Context values of a paused node can be changed');
}

export function notLaunched(): TargetRefusal {
  return new TargetRefusal(1002, 'nothing to restart: the session has not launched');
}

/** Time travel without a main thread paused at a node (a run on a server never is: it keeps no checkpoints here). */
export function notPausedForTravel(): TargetRefusal {
  return new TargetRefusal(1005, 'time travel needs the main thread paused at a node');
}

// The pipeline the Restate tests run: two tool nodes around a human gate.
export const GATED_PIPELINE = `digraph gated {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  review [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, tool_command="echo ship >> steps.log"]
  exit [shape=Msquare]
  start -> prepare -> review
  review -> ship [label="[Y] Yes"]
  review -> exit [label="[N] No"]
  ship -> exit
}
`;

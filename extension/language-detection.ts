// Whether a DOT document is an Attractor pipeline: a `digraph` using attributes only Attractor gives
// meaning to. Used to take over `.dot` files another DOT extension claimed (setting
// `attractor.languageDetection`), never to give plain Graphviz files our diagnostics.
const ATTRACTOR_MARKERS = /\b(shape\s*=\s*"?(Mdiamond|Msquare)\b|prompt\s*=|tool_command\s*=|goal_gate\s*=|retry_target\s*=|model_stylesheet\s*=|llm_model\s*=|human\.default_choice|loop_restart\s*=)/;

export function looksLikeAttractorPipeline(text: string): boolean {
  return /\bdigraph\b/i.test(text) && ATTRACTOR_MARKERS.test(text);
}

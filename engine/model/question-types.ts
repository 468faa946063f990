import { acceleratorKey } from './accelerator';
import type { GraphEdge, GraphNode } from './graph';

/**
 * Canonical §6.2's question types as a human gate asks them (`human.question_type`; EXTENSIONS
 * R6 c). FREEFORM is `human.freeform=true` on any of them.
 */
export const questionTypeValues = ['multiple_choice', 'yes_no', 'confirmation'] as const;
export type QuestionType = (typeof questionTypeValues)[number];

const questionTypeDocs: Readonly<Record<QuestionType, string>> = {
  multiple_choice: 'Pick one of the outgoing edges (the default).',
  yes_no: 'A yes/no question: of its two outgoing edges one reads yes (`[Y] …`), the other no (`[N] …`); the answer picks it.',
  confirmation: 'Confirm to go on: yes is a success, no a failure (route it with `outcome=fail`); its edges are chosen as after any node.',
};

export const questionTypes = questionTypeValues.map((value) => ({ value, doc: questionTypeDocs[value] }));

export function questionTypeOf(node: GraphNode): QuestionType {
  const written = node.attributes.get('human.question_type')?.value.trim();
  return questionTypeValues.find((type) => type === written) ?? 'multiple_choice';
}

/** An edge's caption as a gate offers it: its label, else its target. */
export function edgeCaption(edge: GraphEdge): string {
  return edge.attributes.get('label')?.value || edge.to;
}

/** A yes_no gate's answers: exactly two edges, one keyed Y and one keyed N (by its label's accelerator). */
export function yesNoEdges(edges: readonly GraphEdge[]): { readonly yes: GraphEdge; readonly no: GraphEdge } | undefined {
  const keyed = (key: string) => edges.filter((edge) => acceleratorKey(edgeCaption(edge)) === key);
  const [yes, ...moreYes] = keyed('Y');
  const [no, ...moreNo] = keyed('N');
  return edges.length === 2 && yes && no && moreYes.length === 0 && moreNo.length === 0 ? { yes, no } : undefined;
}

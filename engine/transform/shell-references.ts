/**
 * Where `$name`, `${name}` and `$a.b` stand in a bash command, and in which quoting context: the
 * engine rewrites each pipeline reference into a reference to an environment variable written
 * for that context, and lint reads the same contexts. A lexer, not a parser: it follows quotes,
 * escapes, `$( )`, backticks, `${ }`, arithmetic, comments and here-documents, which is all the
 * quoting bash has.
 */

/**
 * - `unquoted`, `double`: ordinary words and `"…"` (also inside `$( )`, backticks and `${ }`).
 * - `single`, `ansi`: inside `'…'` and `$'…'`, where bash expands nothing.
 * - `heredoc`: the body of `<<EOF` (expanded by bash); `quoted-heredoc`: of `<<'EOF'` (literal).
 * - `arithmetic`: where bash evaluates a value as an expression, quoted or not, and runs the
 *   `$( )` an `a[…]` in it holds: `$(( ))`, `$[ ]`, `(( ))`, `let`, `declare -i`, array subscripts,
 *   `${x:offset:length}`, the operands of `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge`, and of `-v`.
 * - `comment`: after `#`.
 */
export type QuoteContext = 'unquoted' | 'double' | 'single' | 'ansi' | 'heredoc' | 'quoted-heredoc' | 'arithmetic' | 'comment';

export interface ShellReference {
  /** As written after `$`: a bare reference takes every `.segment` that follows (`$a.b.c` → `a.b.c`). */
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly braced: boolean;
  readonly context: QuoteContext;
}

type FrameKind = 'unquoted' | 'double' | 'single' | 'ansi' | 'backtick' | 'subshell' | 'brace' | 'arithmetic' | 'subscript' | 'integer-command';

interface Frame {
  readonly kind: FrameKind;
  /** Where the frame opened (at its `$`, quote or bracket). */
  readonly start: number;
  /** Open parentheses inside a `$( )` / `$(( ))` frame. */
  depth: number;
  /** A `${name:offset}` frame, whose offset and length are arithmetic. */
  arithmetic?: boolean;
}

interface PendingHeredoc {
  readonly delimiter: string;
  readonly quoted: boolean;
  readonly stripTabs: boolean;
}

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const BARE = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const BRACED = /\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}/y;
const HEREDOC = /<<(-?)[ \t]*(?:'([^']*)'|"([^"]*)"|\\?([A-Za-z0-9_.-]+))/y;
const WORD_START = /[\s;&|()]/;
// `let …` and `declare -i x=…` (also typeset, local, export, readonly): every argument is arithmetic.
const INTEGER_COMMAND = /^(?:let\s|(?:declare|typeset|local|export|readonly)\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*i)/;
// `[[ -v $x ]]` evaluates the subscript of the name it is given, like arithmetic.
const ARITHMETIC_TEST = /(?:^|\s)-(?:eq|ne|lt|le|gt|ge|v)$/;
const BEFORE_ARITHMETIC_TEST = /^["']?\s+-(?:eq|ne|lt|le|gt|ge)(?:\s|$)/;

export function findShellReferences(text: string): ShellReference[] {
  return new ShellLexer(text).run();
}

class ShellLexer {
  private readonly references: ShellReference[] = [];
  private readonly stack: Frame[] = [{ kind: 'unquoted', start: 0, depth: 0 }];
  private readonly heredocs: PendingHeredoc[] = [];
  private i = 0;

  constructor(private readonly text: string) {}

  run(): ShellReference[] {
    while (this.i < this.text.length) this.step();
    return this.references;
  }

  private get top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  /** The context at the current position: arithmetic up to the enclosing command, else the innermost quote. */
  private context(): QuoteContext {
    for (let index = this.stack.length - 1; index >= 0; index -= 1) {
      const frame = this.stack[index] as Frame;
      if (frame.kind === 'arithmetic' || frame.kind === 'subscript' || frame.kind === 'integer-command' || frame.arithmetic) return 'arithmetic';
      if (frame.kind === 'subshell' || frame.kind === 'backtick') break;
    }
    for (let index = this.stack.length - 1; index >= 0; index -= 1) {
      const { kind } = this.stack[index] as Frame;
      if (kind === 'double' || kind === 'single' || kind === 'ansi') return kind;
      if (kind !== 'brace') return 'unquoted';
    }
    return 'unquoted';
  }

  private push(kind: FrameKind, skip: number): void {
    this.stack.push({ kind, start: this.i, depth: 0 });
    this.i += skip;
  }

  private pop(skip: number): void {
    if (this.stack.length > 1) this.stack.pop();
    this.i += skip;
  }

  private step(): void {
    const { text } = this;
    const c = text[this.i] as string;
    const frame = this.top;
    if (frame.kind === 'single') return c === "'" ? this.pop(1) : this.literal(c, 'single');
    if (frame.kind === 'ansi') {
      if (c === '\\') return void (this.i += 2);
      return c === "'" ? this.pop(1) : this.literal(c, 'ansi');
    }
    if (c === '\\') return void (this.i += 2);
    if (c === '$') return this.dollar();
    if (c === '`') return frame.kind === 'backtick' ? this.pop(1) : this.push('backtick', 1);
    if (frame.kind === 'double') return c === '"' ? this.pop(1) : void (this.i += 1);
    if (frame.kind === 'arithmetic') return this.arithmetic(c);
    if (c === "'") return this.push('single', 1);
    if (c === '"') return this.push('double', 1);
    if (frame.kind === 'integer-command' && /[;&|)\n]/.test(c)) return this.pop(0);
    if (c === '}' && frame.kind === 'brace') return this.pop(1);
    if (c === ']' && frame.kind === 'subscript') return this.pop(1);
    if (c === '[' && /[A-Za-z0-9_]/.test(text[this.i - 1] ?? '') && frame.kind !== 'subscript') return this.push('subscript', 1);
    if (c === ':' && frame.kind === 'brace' && /^\$\{[A-Za-z_][A-Za-z0-9_]*$/.test(text.slice(frame.start, this.i)) && !'-=+?'.includes(text[this.i + 1] ?? '')) {
      frame.arithmetic = true;
    }
    if (frame.kind === 'subshell' && c === '(') return void ((frame.depth += 1), (this.i += 1));
    if (frame.kind === 'subshell' && c === ')') return frame.depth > 0 ? void ((frame.depth -= 1), (this.i += 1)) : this.pop(1);
    if (c === '(' && text[this.i + 1] === '(' && this.atWordStart()) return this.push('arithmetic', 2);
    if (this.atWordStart() && INTEGER_COMMAND.test(text.slice(this.i, this.i + 40))) return this.push('integer-command', 1);
    if (c === '#' && this.atWordStart()) return this.comment();
    if (c === '<' && text.startsWith('<<<', this.i)) return void (this.i += 3);
    if (c === '<' && text.startsWith('<<', this.i)) return this.heredocOperator();
    if (c === '\n' && this.heredocs.length > 0) return this.heredocBodies();
    this.i += 1;
  }

  /** In `'…'` a `$` is literal text to bash, but a reference the author may have meant all the same. */
  private literal(c: string, context: QuoteContext): void {
    if (c === '$' && this.reference(context)) return;
    this.i += 1;
  }

  private dollar(): void {
    const { text } = this;
    if (text.startsWith('$((', this.i)) return this.push('arithmetic', 3);
    if (text.startsWith('$[', this.i)) return this.push('subscript', 2);
    if (text.startsWith('$(', this.i)) return this.push('subshell', 2);
    if (text.startsWith("$'", this.i) && this.top.kind !== 'double') return this.push('ansi', 2);
    if (this.reference(this.context())) return;
    if (text.startsWith('${', this.i)) return this.push('brace', 2);
    this.i += 1;
  }

  /** Records the reference at `$` and moves past it; false when none stands there. */
  private reference(context: QuoteContext): boolean {
    const after = this.i + 1;
    BRACED.lastIndex = after;
    const braced = BRACED.exec(this.text);
    if (braced) return this.record(braced[1] as string, braced[0].length, true, context);
    BARE.lastIndex = after;
    const bare = BARE.exec(this.text);
    return bare ? this.record(bare[0], bare[0].length, false, context) : false;
  }

  private record(name: string, length: number, braced: boolean, context: QuoteContext): true {
    const end = this.i + 1 + length;
    const tested = (context === 'unquoted' || context === 'double') && this.isArithmeticOperand(this.i, end);
    this.references.push({ name, start: this.i, end, braced, context: tested ? 'arithmetic' : context });
    this.i += 1 + length;
    return true;
  }

  /** `[[ "$x" -eq 1 ]]`: bash evaluates both operands of these tests as arithmetic. */
  private isArithmeticOperand(start: number, end: number): boolean {
    const before = this.text.slice(0, start).replace(/["'\s]*$/, '');
    return ARITHMETIC_TEST.test(before) || BEFORE_ARITHMETIC_TEST.test(this.text.slice(end));
  }

  private arithmetic(c: string): void {
    const frame = this.top;
    if (c === '(') frame.depth += 1;
    else if (c === ')' && frame.depth > 0) frame.depth -= 1;
    else if (c === ')' && this.text[this.i + 1] === ')') return this.pop(2);
    else if (/[A-Za-z_]/.test(c) && !/[A-Za-z0-9_]/.test(this.text[this.i - 1] ?? '')) {
      // A bare name inside arithmetic is a shell variable (bash reads `x` as `$x`): never ours.
      NAME.lastIndex = this.i;
      this.i += NAME.exec(this.text)?.[0].length ?? 1;
      return;
    }
    this.i += 1;
  }

  private atWordStart(): boolean {
    return this.i === 0 || WORD_START.test(this.text[this.i - 1] as string);
  }

  private comment(): void {
    const end = this.text.indexOf('\n', this.i);
    const stop = end < 0 ? this.text.length : end;
    while (this.i < stop) {
      if (this.text[this.i] !== '$' || !this.reference('comment')) this.i += 1;
    }
  }

  private heredocOperator(): void {
    HEREDOC.lastIndex = this.i;
    const match = HEREDOC.exec(this.text);
    if (!match) return void (this.i += 2);
    const unquoted = match[4];
    const delimiter = (match[2] ?? match[3] ?? unquoted) as string;
    const quoted = unquoted === undefined || match[0].includes('\\');
    this.heredocs.push({ delimiter, quoted, stripTabs: match[1] === '-' });
    this.i += match[0].length;
  }

  /** The bodies of the here-documents opened on the line that ends at `this.i`. */
  private heredocBodies(): void {
    this.i += 1;
    for (const heredoc of this.heredocs.splice(0)) {
      while (this.i < this.text.length) {
        const end = this.text.indexOf('\n', this.i);
        const lineEnd = end < 0 ? this.text.length : end;
        const line = this.text.slice(this.i, lineEnd);
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) {
          this.i = Math.min(lineEnd + 1, this.text.length);
          break;
        }
        this.heredocLine(lineEnd, heredoc.quoted ? 'quoted-heredoc' : 'heredoc');
        this.i = lineEnd + 1;
      }
    }
  }

  private heredocLine(lineEnd: number, context: QuoteContext): void {
    while (this.i < lineEnd) {
      const c = this.text[this.i];
      if (c === '\\' && context === 'heredoc') this.i += 2;
      else if (c !== '$' || !this.reference(context)) this.i += 1;
    }
  }
}

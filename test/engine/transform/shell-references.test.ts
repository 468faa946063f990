import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findShellReferences } from '../../../engine/transform/shell-references';

const contexts = (command: string) => findShellReferences(command).map((r) => `${r.name}:${r.context}`);

describe('findShellReferences: each $name with the quoting context bash reads it in', () => {
  it('quotes, escapes and ANSI-C strings', () => {
    assert.deepEqual(contexts(`echo $a "$b \${c}" '$d' $'$e\\'' \\$f "\\$g" $h.i`), ['a:unquoted', 'b:double', 'c:double', 'd:single', 'e:ansi', 'h.i:unquoted']);
  });

  it('command substitution inside double quotes starts a fresh unquoted context; backticks too', () => {
    assert.deepEqual(contexts(`echo "x $(printf %s $a "$b") $c" \`echo $d\``), ['a:unquoted', 'b:double', 'c:double', 'd:unquoted']);
  });

  it('here-documents: unquoted bodies expand, quoted ones are literal, <<- strips tabs, <<< is a here-string', () => {
    const command = `cat <<EOF >a\n$a '$b'\nEOF\ncat <<'X'\n$c\nX\ncat <<-Y\n\t$d\n\tY\ncat <<< "$e"; echo $f`;
    assert.deepEqual(contexts(command), ['a:heredoc', 'b:heredoc', 'c:quoted-heredoc', 'd:heredoc', 'e:double', 'f:unquoted']);
  });

  it('arithmetic: $(( )), (( )), subscripts, substring offsets and -eq operands; ${x:-default} is not', () => {
    const command = `echo $(( $a + 1 )); (( $b > 2 )); echo \${arr[$c]} "\${s:$d:2}" "\${u:-$e}"; [[ "$f" -eq 1 ]]; [ 1 -lt $g ]; [[ -v $h ]]`;
    assert.deepEqual(contexts(command), ['a:arithmetic', 'b:arithmetic', 'c:arithmetic', 'd:arithmetic', 'e:double', 'f:arithmetic', 'g:arithmetic', 'h:arithmetic']);
    assert.deepEqual(contexts(`echo $[ $a ]; let "x = $b" y=$c; declare -i n=$d; echo $e; local -ri m="$f"`), ['a:arithmetic', 'b:arithmetic', 'c:arithmetic', 'd:arithmetic', 'e:unquoted', 'f:arithmetic']);
  });

  it('comments, and # inside a word', () => {
    assert.deepEqual(contexts(`echo a#$b # $c\necho $d`), ['b:unquoted', 'c:comment', 'd:unquoted']);
  });
});

/**
 * Where a JSON text stops being JSON (RFC 8259), for the error message only: the body itself is always parsed by
 * JSON.parse, whose messages in Bun carry no position. One pass, no recursion (a 1 MiB body of `[` is fine).
 */
export interface JsonErrorLocation {
  offset: number;
  line: number;
  column: number;
  problem: string;
}

export function locateJsonError(text: string): JsonErrorLocation | undefined {
  const found = scan(text);
  if (!found) return undefined;
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < found.offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset: found.offset, line, column: found.offset - lineStart + 1, problem: found.problem };
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const TOKEN = /[^\s,:[\]{}]{1,20}|./y;

function scan(text: string): { offset: number; problem: string } | undefined {
  // What the parser expects next, and the open containers ('{' or '[').
  let expect: 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'end' = 'value';
  const open: string[] = [];
  let i = 0;
  const describe = (at: number) => {
    TOKEN.lastIndex = at;
    return at >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(TOKEN.exec(text)![0])}`;
  };
  const fail = (problem: string) => ({ offset: i, problem });
  const match = (re: RegExp) => {
    re.lastIndex = i;
    return re.exec(text)?.[0];
  };
  /** The string starting at i (a '"'), or undefined when it is not one. A loop, not a regex: linear on 1 MiB. */
  const matchString = () => {
    let j = i + 1;
    while (j < text.length) {
      const code = text.charCodeAt(j);
      if (code === 34) return text.slice(i, j + 1);
      if (code < 32) return undefined;
      if (code === 92) {
        ESCAPE.lastIndex = j;
        const sequence = ESCAPE.exec(text);
        if (!sequence) return undefined;
        j += sequence[0].length;
      } else j++;
    }
    return undefined;
  };

  for (;;) {
    while (i < text.length && WS.has(text[i]!)) i++;
    if (i >= text.length) return expect === 'end' ? undefined : fail(text.trim() === '' ? 'the body is empty' : 'unexpected end of input');
    const ch = text[i]!;
    switch (expect) {
      case 'end':
        return fail(`${describe(i)} after the end of the JSON value`);
      case 'colon':
        if (ch !== ':') return fail(`expected ':' after a property name, found ${describe(i).replace('unexpected ', '')}`);
        i++;
        expect = 'value';
        continue;
      case 'comma-or-close': {
        const close = open[open.length - 1] === '{' ? '}' : ']';
        if (ch === ',') {
          i++;
          expect = close === '}' ? 'key' : 'value';
        } else if (ch === close) {
          i++;
          open.pop();
          expect = open.length ? 'comma-or-close' : 'end';
        } else return fail(`expected ',' or '${close}', found ${describe(i).replace('unexpected ', '')}`);
        continue;
      }
      case 'key':
      case 'key-or-close': {
        if (ch === '}' && expect === 'key-or-close') {
          i++;
          open.pop();
          expect = open.length ? 'comma-or-close' : 'end';
          continue;
        }
        if (ch === '}') return fail("a trailing comma before '}'");
        const key = ch === '"' ? matchString() : undefined;
        if (!key)
          return fail(
            ch === '"'
              ? 'unterminated string or invalid escape in a property name'
              : `property names must be double-quoted strings, found ${describe(i).replace('unexpected ', '')}`,
          );
        i += key.length;
        expect = 'colon';
        continue;
      }
      case 'value':
      case 'value-or-close': {
        if (ch === ']' && expect === 'value-or-close') {
          i++;
          open.pop();
          expect = open.length ? 'comma-or-close' : 'end';
          continue;
        }
        if (ch === ']' && open[open.length - 1] === '[') return fail("a trailing comma before ']'");
        if (ch === '{' || ch === '[') {
          open.push(ch);
          i++;
          expect = ch === '{' ? 'key-or-close' : 'value-or-close';
          continue;
        }
        const token = ch === '"' ? matchString() : ch === '-' || (ch >= '0' && ch <= '9') ? match(NUMBER) : match(LITERAL);
        if (!token) return fail(ch === '"' ? 'unterminated string, or a control character or invalid escape in it' : describe(i));
        i += token.length;
        expect = open.length ? 'comma-or-close' : 'end';
        continue;
      }
    }
  }
}

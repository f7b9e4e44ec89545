/**
 * Lists the longest functions under functions/ (or the folders given), by the lines each spans,
 * read with the TypeScript compiler API. `node --import tsx bench/function-lengths.ts [n] [dir…]`.
 * A function's length includes the functions nested in it; each nested function is listed too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  name: string;
  lines: number;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function, method, arrow function and accessor in one file, with its span in lines. */
export function functionLengths(path: string, root = process.cwd()): FunctionLength[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: relative(root, path), name: nameOf(node, source), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function longestFunctions(dirs: string[], count: number): FunctionLength[] {
  return dirs
    .flatMap(tsFiles)
    .flatMap((file) => functionLengths(file))
    .sort((a, b) => b.lines - a.lines)
    .slice(0, count);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [first, ...rest] = process.argv.slice(2);
  const count = Number(first) || 5;
  const dirs = Number(first) ? rest : process.argv.slice(2);
  for (const f of longestFunctions(dirs.length ? dirs : ['functions'], count))
    console.log(`${String(f.lines).padStart(4)}  ${f.file} › ${f.name}`);
}

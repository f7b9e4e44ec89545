import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * Every conditional write in `functions/store/`, by the top-level function that sends it: an object
 * with a `ConditionExpression`, a TransactWriteItems (`TransactWriteCommand`, `transactGuarded`,
 * `countUnderLimit`, `deleteCounted`) or a `putOnce`. Ids read `messages.store.ts › putAcceptedMessage`.
 */
export function conditionalWrites(dir = 'functions/store'): string[] {
  const ids = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, owner: string | undefined) => {
      let here = owner;
      if (node.parent === src || (node.parent && ts.isVariableDeclarationList(node.parent.parent ?? node))) {
        if (ts.isFunctionDeclaration(node) && node.name) here = node.name.text;
      }
      if (ts.isVariableStatement(node) && node.parent === src) {
        const d = node.declarationList.declarations[0];
        if (d && ts.isIdentifier(d.name)) here = d.name.text;
      }
      const isWrite =
        (ts.isPropertyAssignment(node) &&
          ts.isIdentifier(node.name) &&
          node.name.text === 'ConditionExpression') ||
        (ts.isNewExpression(node) &&
          ts.isIdentifier(node.expression) &&
          node.expression.text === 'TransactWriteCommand') ||
        (ts.isCallExpression(node) &&
          ts.isIdentifier(node.expression) &&
          ['transactGuarded', 'putOnce', 'deleteCounted', 'countUnderLimit'].includes(node.expression.text));
      if (isWrite && here) ids.add(`${file} › ${here}`);
      ts.forEachChild(node, (c) => visit(c, here));
    };
    visit(src, undefined);
  }
  return [...ids].sort();
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * One home per status (docs/architecture.md): a delivery's status is written only by
 * src/modules/webhooks/delivery-status.ts, where its transitions are. Found in the syntax tree: a
 * Kysely `.set({ status… })` on `updateTable('webhook_deliveries')`, or SQL text that updates the
 * table's status. Inserting a new delivery (as `pending`) is not a transition and is allowed.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
const HOME = path.join('modules', 'webhooks', 'delivery-status.ts');
const RAW = /update\s+webhook_deliveries\b[\s\S]*?\bset\b[\s\S]*?\bstatus\s*=/i;

/** The table an `updateTable('…')` call at the root of `node`'s call chain names, if any. */
function updatedTable(node: ts.Expression): string | undefined {
  let at: ts.Expression = node;
  for (;;) {
    if (ts.isCallExpression(at)) {
      const callee = at.expression;
      const [first] = at.arguments;
      if (
        ts.isPropertyAccessExpression(callee) &&
        callee.name.text === 'updateTable' &&
        first &&
        ts.isStringLiteralLike(first)
      )
        return first.text;
      at = callee;
    } else if (ts.isPropertyAccessExpression(at)) at = at.expression;
    else return undefined;
  }
}

/** Where `text` writes webhook_deliveries.status, as `line: code`. */
function statusWrites(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${node.getText(file).slice(0, 80)}`;
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'set' &&
      updatedTable(node.expression.expression) === 'webhook_deliveries'
    ) {
      const [values] = node.arguments;
      // A spread or a computed object could hold `status`: counted as a write.
      const writes =
        !values ||
        !ts.isObjectLiteralExpression(values) ||
        values.properties.some(
          (p) => ts.isSpreadAssignment(p) || (p.name && p.name.getText(file) === 'status'),
        );
      if (writes) found.push(at(node));
    }
    const sqlText = ts.isStringLiteralLike(node)
      ? node.text
      : ts.isTemplateExpression(node)
        ? node.getText(file)
        : '';
    if (RAW.test(sqlText)) found.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('one home for a delivery’s status', () => {
  it('only delivery-status.ts writes webhook_deliveries.status', () => {
    const writes = readdirSync(SRC, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .map((e) => path.join(e.parentPath, e.name))
      .filter((f) => !f.includes(`${path.sep}db${path.sep}migrations${path.sep}`))
      .filter((f) => path.relative(SRC, f) !== HOME)
      .flatMap((f) =>
        statusWrites(f, readFileSync(f, 'utf8')).map((w) => `${path.relative(SRC, f)}:${w}`),
      );
    expect(writes).toEqual([]);
    // The home itself is found by the same reading, so the rule cannot pass by reading nothing.
    expect(statusWrites(HOME, readFileSync(path.join(SRC, HOME), 'utf8')).length).toBeGreaterThan(
      0,
    );
  });

  it('finds a status write however it is spelled, and not other updates', () => {
    const text = [
      "db.updateTable('webhook_deliveries').set({ status: 'failed' }).execute();",
      "db.updateTable('webhook_deliveries').where('id', '=', id).set({ ...patch }).execute();",
      "db.updateTable('webhook_deliveries').set({ next_attempt_at: now }).execute();",
      "db.updateTable('webhooks').set({ status: 'inactive' }).execute();",
      "sql`update webhook_deliveries set status = 'failed' where id = ${id}`;",
      "const q = 'UPDATE webhook_deliveries SET attempt_count = 1, status = $1';",
      "const r = 'update webhook_deliveries set next_attempt_at = $1';",
    ].join('\n');
    expect(statusWrites('fixture.ts', text).map((w) => w.split(':')[0])).toEqual([
      '1',
      '2',
      '5',
      '6',
    ]);
  });
});

/**
 * One place writes each field of a pipeline's lifecycle (issue 15): core/pipeline/lifecycle-writer.ts assigns each
 * field of `Lifecycle` at exactly one site, and no other file of core/ assigns any. Read from the source with
 * TypeScript's parser, so an aliased `life.running = …` in the supervisor counts as much as `this.life.running = …`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const WRITER = 'core/pipeline/lifecycle-writer.ts';

interface Site {
  file: string;
  field: string;
  /** The method or function the assignment is in. */
  inside: string;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The fields of the Lifecycle interface, as core/pipeline/lifecycle.ts declares them. */
function lifecycleFields(): string[] {
  const source = ts.createSourceFile('lifecycle.ts', readFileSync(join(ROOT, 'core/pipeline/lifecycle.ts'), 'utf8'), ts.ScriptTarget.Latest);
  const declared = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'Lifecycle');
  return declared!.members.map((m) => (m.name as ts.Identifier).text);
}

/** `life`, `this.life`, `e.life`: an expression that names a lifecycle. */
function isLife(expr: ts.Expression): boolean {
  return (ts.isIdentifier(expr) && expr.text === 'life') || (ts.isPropertyAccessExpression(expr) && expr.name.text === 'life');
}

function enclosing(node: ts.Node): string {
  for (let n = node.parent; n; n = n.parent) {
    if ((ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n)) && n.name) return n.name.getText();
  }
  return '(top level)';
}

/** Every assignment (=, +=, ++, delete, Object.assign) to a field of a lifecycle in text. */
function writeSites(file: string, text: string): Site[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sites: Site[] = [];
  const target = (expr: ts.Expression, at: ts.Node) => {
    if (ts.isPropertyAccessExpression(expr) && isLife(expr.expression)) sites.push({ file, field: expr.name.text, inside: enclosing(at) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment) target(node.left, node);
    } else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node))
      && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) {
      target(node.operand, node);
    } else if (ts.isDeleteExpression(node)) {
      target(node.expression, node);
    } else if (ts.isCallExpression(node) && node.expression.getText() === 'Object.assign' && node.arguments[0] && isLife(node.arguments[0])) {
      sites.push({ file, field: '(Object.assign)', inside: enclosing(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

describe('the lifecycle writer', () => {
  const fields = lifecycleFields();
  const sites = files(join(ROOT, 'core')).flatMap((path) => writeSites(relative(ROOT, path), readFileSync(path, 'utf8')));

  it('is the only code in core/ that assigns a lifecycle field', () => {
    expect(sites.filter((s) => s.file !== WRITER)).toEqual([]);
  });

  it('assigns each field of the lifecycle at exactly one site', () => {
    expect(fields.length).toBeGreaterThan(10);
    const count = (field: string) => sites.filter((s) => s.field === field).length;
    expect(Object.fromEntries(fields.map((f) => [f, count(f)]))).toEqual(Object.fromEntries(fields.map((f) => [f, 1])));
  });

  it('finds a write however the lifecycle is named, and whatever the operator', () => {
    const found = writeSites('x.ts', `
      class S {
        a() { const life = this.life; life.running = null; }
        b() { this.life.run += 1; e.life.stopping = true; }
        c() { this.life.restartAttempts++; delete this.life.probedCodec; Object.assign(this.life, {}); }
        d() { if (life.state === 'playing') return life.host; }
      }`);
    expect(found.map((s) => `${s.inside}:${s.field}`)).toEqual(['a:running', 'b:run', 'b:stopping', 'c:restartAttempts', 'c:probedCodec', 'c:(Object.assign)']);
  });
});

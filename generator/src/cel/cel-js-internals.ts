/**
 * The parts of @marcbachmann/cel-js's checker and AST that our macros use:
 * the library types them loosely (`unknown`), so they are declared once here.
 */
export interface TypeDeclaration {
  readonly name: string;
  readonly kind: string;
  readonly valueType?: TypeDeclaration;
  readonly keyType?: TypeDeclaration;
}

export interface Node {
  readonly op: string;
  readonly args: unknown;
}

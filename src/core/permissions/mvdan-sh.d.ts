// The few parts of mvdan-sh (mvdan/sh's bash parser compiled to JavaScript) that
// shell-parts.ts reads. The package ships no types; offsets are UTF-8 byte offsets.
declare module 'mvdan-sh' {
  export interface Pos { Offset(): number }
  export interface Node { Pos(): Pos; End(): Pos; [field: string]: unknown }
  export interface Parser { Parse(src: string, name: string): Node }
  export const syntax: {
    NewParser(...options: unknown[]): Parser;
    NodeType(node: unknown): string;
    Walk(node: Node, visit: (node: Node | null) => boolean): void;
  };
}

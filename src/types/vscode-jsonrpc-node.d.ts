/**
 * `vscode-jsonrpc/node` is declared through the package's `exports` map, which the project's
 * `moduleResolution: node` does not read; this points the type checker at the same file
 * (esbuild and Node resolve the import through `exports` as usual).
 */
declare module 'vscode-jsonrpc/node' {
  export * from 'vscode-jsonrpc/lib/node/main';
}

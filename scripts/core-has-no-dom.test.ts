import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Issue 2: "Putting `document` into any core file breaks the typecheck." This compiles a
// small file with the core's compiler options (tsconfig.core.json) and checks the errors.
function diagnosticsFor(source: string): string[] {
  const configText = readFileSync("tsconfig.core.json", "utf8");
  const parsed = ts.parseConfigFileTextToJson("tsconfig.core.json", configText);
  const base = ts.parseConfigFileTextToJson("tsconfig.base.json", readFileSync("tsconfig.base.json", "utf8"));
  const options = ts.convertCompilerOptionsFromJson(
    { ...(base.config as { compilerOptions: object }).compilerOptions, ...(parsed.config as { compilerOptions: object }).compilerOptions },
    ".",
  ).options;
  const fileName = "src/log/__probe__.ts";
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (name === fileName ? ts.createSourceFile(name, source, version) : original(name, version));
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("the core/host split is enforced by the compiler (style.md: xterm's no-DOM core)", () => {
  it("a core file that uses `document` does not compile", () => {
    const errors = diagnosticsFor("export const title = document.title;\n");
    expect(errors.join("\n")).toMatch(/Cannot find name 'document'/);
  });

  it("a core file that uses `window` does not compile", () => {
    expect(diagnosticsFor("export const w = window.location;\n").join("\n")).toMatch(/Cannot find name 'window'/);
  });

  it("the web-platform APIs every host has (fetch, WebCrypto, streams) do compile", () => {
    const errors = diagnosticsFor(
      "export const f = (u: string) => fetch(u);\nexport const d = crypto.subtle.digest('SHA-256', new Uint8Array(1));\nexport const s = new ReadableStream<Uint8Array>();\n",
    );
    expect(errors).toEqual([]);
  });
});

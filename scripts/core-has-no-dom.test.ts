import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// "Putting `document` into any core file breaks the typecheck." This compiles a
// small file with the core's compiler options (tsconfig.core.json) and checks the errors.
function diagnosticsFor(source: string, fileName = "src/log/__probe__.ts"): string[] {
  const configText = readFileSync("tsconfig.core.json", "utf8");
  const parsed = ts.parseConfigFileTextToJson("tsconfig.core.json", configText);
  const base = ts.parseConfigFileTextToJson("tsconfig.base.json", readFileSync("tsconfig.base.json", "utf8"));
  const options = ts.convertCompilerOptionsFromJson(
    { ...(base.config as { compilerOptions: object }).compilerOptions, ...(parsed.config as { compilerOptions: object }).compilerOptions },
    ".",
  ).options;
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (name === fileName ? ts.createSourceFile(name, source, version) : original(name, version));
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

describe("the core/host split is enforced by the compiler (like xterm's no-DOM core)", () => {
  it("a core file that uses `document` does not compile", () => {
    const errors = diagnosticsFor("export const title = document.title;\n");
    expect(errors.join("\n")).toMatch(/Cannot find name 'document'/);
  });

  it("a runner file (src/runner, the page's run plan moved into the core) that uses `document` does not compile", () => {
    const errors = diagnosticsFor("export const title = document.title;\n", "src/runner/__probe__.ts");
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

// The probes above prove the options; these prove which files get them. A core folder left
// out of tsconfig.core.json would be compiled only by the page's program, DOM and all.
const CORE_FOLDERS = [
  "platform",
  "log",
  "bytes",
  "policy",
  "net",
  "proxy",
  "tls",
  "resolver",
  "cas",
  "skills",
  "kms",
  "model",
  "runner",
  "policy-tools",
];

function coreProgramFiles(): string[] {
  const parsed = ts.parseConfigFileTextToJson("tsconfig.core.json", readFileSync("tsconfig.core.json", "utf8"));
  const config = ts.parseJsonConfigFileContent(parsed.config, ts.sys, process.cwd(), undefined, "tsconfig.core.json");
  return config.fileNames.map((name) => relative(process.cwd(), name).split(sep).join("/"));
}

describe("every core folder is compiled without the DOM", () => {
  const files = coreProgramFiles();

  it.each(CORE_FOLDERS)("src/%s is in the core program", (folder) => {
    expect(files).toContain(`src/${folder}/index.ts`);
  });

  it("no file in the core program imports the browser host (src/page)", () => {
    const importsPage = files.filter((name) => /from\s+["'](?:\.\.\/)+page[/"']/.test(readFileSync(name, "utf8")));
    expect(importsPage).toEqual([]);
  });
});

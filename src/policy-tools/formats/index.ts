import type { Policy } from "../../policy";
import { exportAwfConfig, importAwfConfig, looksLikeAwfConfig } from "./awf";
import { exportOpenShellPolicy, importOpenShellPolicy, looksLikeOpenShellPolicy } from "./openshell";
import { exportSandboxRuntimeSettings, importSandboxRuntimeSettings, looksLikeSandboxRuntimeSettings } from "./sandbox-runtime";
import { exportSmokescreenAcl, importSmokescreenAcl, looksLikeSmokescreenAcl, type Translated } from "./smokescreen";

/** Other proxies' policy formats, by the name `--format` takes: one table for the CLI and the page. */
export interface PolicyFormat {
  /** What the file is, in a sentence's words ("a smokescreen ACL"). */
  label: string;
  looksLike(text: string): boolean;
  import(text: string, options: { role?: string }): ({ ok: true } & Translated<Policy>) | { ok: false; errors: string[] };
  export(policy: Policy, options: { role?: string }): Translated<string>;
}

export const POLICY_FORMATS: Readonly<Record<string, PolicyFormat>> = {
  smokescreen: {
    label: "a smokescreen ACL",
    looksLike: looksLikeSmokescreenAcl,
    import: importSmokescreenAcl,
    export: exportSmokescreenAcl,
  },
  "sandbox-runtime": {
    label: "sandbox-runtime (Claude Code) settings",
    looksLike: looksLikeSandboxRuntimeSettings,
    import: (text) => importSandboxRuntimeSettings(text),
    export: (policy) => exportSandboxRuntimeSettings(policy),
  },
  awf: {
    label: "a gh-aw-firewall (awf) config",
    looksLike: looksLikeAwfConfig,
    import: (text) => importAwfConfig(text),
    export: (policy) => exportAwfConfig(policy),
  },
  openshell: {
    label: "an OpenShell sandbox policy",
    looksLike: looksLikeOpenShellPolicy,
    import: (text) => importOpenShellPolicy(text),
    export: (policy) => exportOpenShellPolicy(policy),
  },
};

/** The format a policy file is in, when it is not this project's own. */
export function foreignPolicyFormat(text: string): string | null {
  return Object.entries(POLICY_FORMATS).find(([, format]) => format.looksLike(text))?.[0] ?? null;
}

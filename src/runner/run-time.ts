import type { GuestPort } from "../console";
import { captureRepositoryNotes, type RepositoryNote } from "../model";
import type { RuntimeArm, RuntimeDelivery } from "../resolver";
import { type AttachedSkill, scriptsGiven } from "../skills";
import { isPlainRelativePath, skillDirName } from "./plan";

/**
 * What a run offers while it lasts (from the moment its command is typed until its outcome):
 * where its tree is, the caller repository's notes, and mid-run delivery of a skill the
 * model-driven agent attached. The Model section arms `/v0/model` with it.
 */
export interface ActiveRun {
  id: string;
  /** The run's tree in the guest: `/mnt/tab/run/<id>`. */
  guestDir: string;
  /**
   * The caller repository's AGENTS.md / CLAUDE.md, captured from the repository the page
   * delivered (the files tab-run quarantines); null when the run works in an existing guest
   * directory the page never saw.
   */
  repository: RepositoryNote[] | null;
  /**
   * Writes a skill the agent attached mid-run into the run's tree (`skills/<dir>/`), its
   * scripts only when the operator allowed that exact pin; resolves to the guest directory.
   */
  deliverSkill(skill: AttachedSkill): Promise<string>;
}

/** Where the share is mounted in the guest. */
export const SHARE_MOUNT = "/mnt/tab";

/** The caller repository's notes from the files the page delivers as `repo/`. */
export function repositoryNotes(repo: Readonly<Record<string, string | Uint8Array>> | null): RepositoryNote[] | null {
  if (repo === null) return null;
  const encoder = new TextEncoder();
  return captureRepositoryNotes(
    Object.entries(repo).map(([path, content]) => ({ path, bytes: typeof content === "string" ? encoder.encode(content) : content })),
  );
}

/**
 * `deliver` for the run-time fetch endpoint: a served resource's files go to
 * `run/<id>/runtime/<N>/` on the share (N the call's index), each path checked plain first.
 * The guest is told the file's path (a single file) or the directory's (a skill directory).
 */
export function runtimeDeliverer(guest: GuestPort, runDir: string, note: (message: string) => void): RuntimeArm["deliver"] {
  return async (delivery: RuntimeDelivery) => {
    const base = `${runDir}/runtime/${delivery.index}`;
    for (const file of delivery.files)
      if (!isPlainRelativePath(file.path)) throw new Error(`a fetched file's path is not plain: ${JSON.stringify(file.path)}`);
    for (const file of delivery.files) await guest.writeFile(`${base}/${file.path}`, file.bytes);
    const only = delivery.kind === "file" && delivery.files.length === 1 ? delivery.files[0] : undefined;
    const path = `${SHARE_MOUNT}/${base}${only ? `/${only.path}` : ""}`;
    note(
      `run-time fetch ${delivery.index + 1}: delivered ${delivery.url} sha256=${delivery.sha256} to ${path} (${delivery.kind}, ${delivery.files.length} files)`,
    );
    return { path };
  };
}

/**
 * Mid-run delivery of a skill the agent attached (`use_skill`): the same layout as a skill
 * attached before the run (`skills/<dir>/SKILL.md`, `scripts/` only for an allowed pin), so the
 * agent's `skill` and `skill-script` verbs find it in the run's tree.
 */
export function skillDeliverer(guest: GuestPort, runDir: string, note: (message: string) => void): ActiveRun["deliverSkill"] {
  return async (skill) => {
    const dir = `${runDir}/skills/${skillDirName(skill.activation.handle)}`;
    for (const script of skill.scripts)
      if (!isPlainRelativePath(script.name) || script.name.includes("/"))
        throw new Error(`skill script ${JSON.stringify(script.name)} is not a plain name`);
    await guest.writeFile(`${dir}/SKILL.md`, skill.context);
    for (const script of skill.scripts) await guest.writeFile(`${dir}/scripts/${script.name}`, script.bytes);
    const a = skill.activation;
    note(
      `attached skill handle ${a.handle} mid-run (${a.discoveryId}, pin ${a.pin}, text sha256=${a.contextSha256}) to ${SHARE_MOUNT}/${dir}; scripts: ${scriptsGiven(skill)} (${skill.scriptsVerdict.reason})`,
    );
    return `${SHARE_MOUNT}/${dir}`;
  };
}

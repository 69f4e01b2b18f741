// Validates every manifest in deploy/k8s against the Kubernetes API's schemas (kubernetes-models
// checks a resource's whole object tree: types, required fields, formats) and lints
// deploy/Dockerfile (dockerfilelint). Prints each problem naming the file and exits 1 if any.
// Run by tests/deploy (CTest) after `npm ci` in this folder.
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { parseAllDocuments } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
const k8s = join(here, "..", "k8s");
const problems = [];

// apiVersion "group/version" or "version" -> the kubernetes-models module that holds its kinds.
function modulePath(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : [null, apiVersion];
  return group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`;
}

let resources = 0;
for (const file of readdirSync(k8s).filter((f) => f.endsWith(".yaml")).sort()) {
  const text = readFileSync(join(k8s, file), "utf8");
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) {
      problems.push(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
      continue;
    }
    const object = doc.toJS();
    if (!object) continue;
    if (object.kind === "Kustomization") continue; // kustomize's own file, not an API object
    resources++;
    const where = `${file}: ${object.kind} ${object.metadata?.name ?? "(no name)"}`;
    let kinds;
    try {
      kinds = await import(modulePath(object.apiVersion));
    } catch {
      problems.push(`${where}: unknown apiVersion ${object.apiVersion}`);
      continue;
    }
    const Kind = kinds[object.kind];
    if (!Kind) {
      problems.push(`${where}: no kind ${object.kind} in ${object.apiVersion}`);
      continue;
    }
    try {
      new Kind(object).validate();
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
}

const dockerfile = join(here, "..", "Dockerfile");
try {
  execFileSync(join(here, "node_modules", ".bin", "dockerfilelint"), ["--output", "json", dockerfile],
               { encoding: "utf8" });
} catch (error) {
  problems.push(`Dockerfile: ${error.stdout || error.message}`);
}

for (const p of problems) console.error(p);
console.log(`deploy: ${resources} Kubernetes resources and the Dockerfile checked, ` +
            `${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);

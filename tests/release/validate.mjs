// Checks a release's documents against their publishers' JSON schemas (schemas/, SOURCE.md
// names where each comes from) with ajv: the SPDX 2.3 bill of materials, and the winget
// manifest's three YAML files (version, defaultLocale, installer) read with yaml.
//   node validate.mjs spdx FILE.spdx.json
//   node validate.mjs winget DIR
// Prints one line per document; exit code 1 when one does not validate.
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import YAML from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
const schema = (name) => JSON.parse(readFileSync(join(here, "schemas", name), "utf8"));

function check(label, schemaFile, doc) {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat("long", true); // winget's 64-bit integers: any integer the schema allows
  const ok = ajv.validate(schema(schemaFile), doc);
  console.log(`${label}: ${ok ? "valid" : "INVALID"} against ${schemaFile}`);
  if (!ok) console.log(JSON.stringify(ajv.errors, null, 1));
  return ok;
}

const [what, path] = process.argv.slice(2);
let ok = true;
if (what === "spdx") {
  ok = check(path, "spdx-schema-2.3.json", JSON.parse(readFileSync(path, "utf8")));
} else if (what === "winget") {
  const files = readdirSync(path).filter((f) => f.endsWith(".yaml"));
  const seen = new Set();
  for (const f of files) {
    const text = readFileSync(join(path, f), "utf8");
    const doc = YAML.parse(text);
    const type = doc && doc.ManifestType;
    const v = doc && doc.ManifestVersion;
    seen.add(type);
    if (!["version", "defaultLocale", "installer"].includes(type) || v !== "1.6.0") {
      console.log(`${f}: unknown ManifestType ${type} or ManifestVersion ${v}`);
      ok = false;
      continue;
    }
    const first = text.split("\n")[0];
    if (!first.includes(`winget-manifest.${type}.1.6.0.schema.json`)) {
      console.log(`${f}: its first line does not name its schema: ${first}`);
      ok = false;
    }
    ok = check(f, `manifest.${type}.1.6.0.json`, doc) && ok;
  }
  for (const t of ["version", "defaultLocale", "installer"])
    if (!seen.has(t)) {
      console.log(`no ${t} manifest in ${path}`);
      ok = false;
    }
} else {
  console.log("usage: node validate.mjs spdx FILE | winget DIR");
  ok = false;
}
process.exit(ok ? 0 : 1);

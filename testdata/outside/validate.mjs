// Reads a batch of JSON Schemas and instances on stdin and prints, as JSON, what
// three readers make of them: the TypeScript MCP SDK's own validator (a draft-07
// Ajv, configured by the SDK: AjvJsonSchemaValidator), Ajv 2020 in strict mode, and
// a plain `new Ajv()` (only whether each schema compiles).
//
// stdin:  {"schemas": [schema, ...], "cases": [[schemaIndex, instance], ...]}
// stdout: {"compile": {"sdk": [...], "ajv2020": [...], "plain": [...]},
//          "verdicts": {"sdk": [...], "ajv2020": [...]}}
// A compile entry is null or the error; a verdict is null (accepted) or the errors.
import { readFileSync } from "node:fs";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";

const input = JSON.parse(readFileSync(0, "utf8"));

function compileAll(compile) {
  const fns = [];
  const errors = [];
  for (const schema of input.schemas) {
    try {
      fns.push(compile(schema));
      errors.push(null);
    } catch (e) {
      fns.push(null);
      errors.push(String(e && e.message ? e.message : e));
    }
  }
  return { fns, errors };
}

const sdk = new AjvJsonSchemaValidator();
const sdkC = compileAll((s) => {
  const v = sdk.getValidator(s);
  return (x) => {
    const r = v(x);
    return r.valid ? null : r.errorMessage;
  };
});
const ajv2020 = new Ajv2020({ strict: true, allErrors: true });
const a2C = compileAll((s) => {
  const v = ajv2020.compile(s);
  return (x) => (v(x) ? null : ajv2020.errorsText(v.errors));
});
const plainAjv = new Ajv();
const plainC = compileAll((s) => plainAjv.compile(s));

function run(c) {
  return input.cases.map(([i, x]) => (c.fns[i] ? c.fns[i](x) : "schema did not compile"));
}

process.stdout.write(
  JSON.stringify({
    compile: { sdk: sdkC.errors, ajv2020: a2C.errors, plain: plainC.errors },
    verdicts: { sdk: run(sdkC), ajv2020: run(a2C) },
  }),
);

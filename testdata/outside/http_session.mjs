// Drives darkroom's Streamable HTTP transport through the TypeScript MCP SDK's own
// client with a bearer token: a client without the token is refused (401), then an
// editing session (ingest, apply_primitive, render_preview, get_state) completes, the
// image is listed and read as a resource, and the prompts list, render and complete.
// The SDK checks every structuredContent against the tool's outputSchema.
//
// usage: node http_session.mjs URL TOKEN PHOTO
// Prints a JSON summary; exits 1 on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, photo] = process.argv.slice(2);
if (!url || !token || !photo) {
  console.error("usage: node http_session.mjs URL TOKEN PHOTO");
  process.exit(2);
}

// Without a token the server answers 401: connect must fail.
let refused = false;
try {
  const anon = new Client({ name: "darkroom-outside-anon", version: "1.0.0" });
  await anon.connect(new StreamableHTTPClientTransport(new URL(url)));
} catch (e) {
  refused = true;
}
if (!refused) throw new Error("a client without a token was let in");

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "darkroom-outside-http", version: "1.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();

const called = [];
async function call(name, args, want = "success") {
  const res = await client.callTool({ name, arguments: args });
  called.push(name);
  const env = res.structuredContent;
  if (!env) throw new Error(`${name}: no structuredContent`);
  const got = env.success ? "success" : env.error.code;
  if (got !== want) {
    throw new Error(`${name} ${JSON.stringify(args)}: got ${got}, want ${want}: ${JSON.stringify(env.error)}`);
  }
  return env.data;
}

const ing = await call("ingest", { path: photo, image_id: "coffee" });
if (ing.image_id !== "coffee") throw new Error(`ingest: ${JSON.stringify(ing)}`);
await call("apply_primitive", { image_id: "coffee", primitive_name: "exposure", value: 0.4 });
const prev = await call("render_preview", { image_id: "coffee", size: 256 });
const state = await call("get_state", { image_id: "coffee" });
// The image is a resource now, and the workflows are prompts with completions.
const { resources } = await client.listResources();
const stateRes = resources.find((r) => r.uri.includes("coffee") && r.uri.endsWith("/state"));
if (!stateRes) throw new Error(`listResources: no state of coffee in ${JSON.stringify(resources.map((r) => r.uri))}`);
const read = await client.readResource({ uri: stateRes.uri });
if (!read.contents.length || !read.contents[0].text.includes("exposure")) throw new Error(`readResource: ${JSON.stringify(read)}`);
const { prompts } = await client.listPrompts();
if (!prompts.some((p) => p.name === "edit_to_brief")) throw new Error(`listPrompts: ${JSON.stringify(prompts)}`);
const got = await client.getPrompt({ name: "edit_to_brief", arguments: { image_id: "coffee", brief: "warmer, brighter cup" } });
if (!got.messages.length) throw new Error("getPrompt: no messages");
const comp = await client.complete({ ref: { type: "ref/prompt", name: "edit_to_brief" }, argument: { name: "image_id", value: "co" } });
if (!comp.completion.values.includes("coffee")) throw new Error(`complete: ${JSON.stringify(comp)}`);
// The token holds edit, not admin: a destructive tool is refused, naming the grant.
await call("confirm_taste_update", { proposal_id: "p1a2b3c4d5e6f" }, "permission_error");
await client.close();
console.log(JSON.stringify({ tools: tools.length, resources: resources.length, prompts: prompts.length, called, preview: prev.path, entries: state.entries?.length ?? null }));

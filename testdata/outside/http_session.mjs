// Drives darkroom's Streamable HTTP transport through the TypeScript MCP SDK's own
// client with a bearer token: a client without the token is refused (401), then an
// editing session (ingest, apply_primitive, render_preview, get_state) completes.
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
// The token holds edit, not admin: a destructive tool is refused, naming the grant.
await call("confirm_taste_update", { proposal_id: "p1a2b3c4d5e6f" }, "permission_error");
await client.close();
console.log(JSON.stringify({ tools: tools.length, called, preview: prev.path, entries: state.entries?.length ?? null }));

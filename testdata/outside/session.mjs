// Drives darkroom through the TypeScript MCP SDK's own client: a full editing session
// that calls every tool, with drawn masks (gradient, ellipse, rectangle, polygon),
// history, diff, the masks vocabulary and an export. The client validates every
// structuredContent against the tool's outputSchema itself (callTool throws on a
// mismatch), so a schema the SDK reads differently from darkroom fails the session.
//
// usage: node session.mjs DARKROOM WORKSPACE PHOTO_DIR
// PHOTO_DIR holds coffee.png and card.png (a grey card). Prints a JSON summary; exits 1 on the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [bin, workspace, photos] = process.argv.slice(2);
if (!bin || !workspace || !photos) {
  console.error("usage: node session.mjs DARKROOM WORKSPACE PHOTO_DIR");
  process.exit(2);
}

const transport = new StdioClientTransport({
  command: bin,
  args: ["serve", "--workspace", workspace, "--allow-root", photos],
  cwd: photos,
  stderr: "inherit",
});
// The client offers sampling, answered from a fixture, so verify_augmentation asks
// this client's "model" (the server's requests carry the original and the variant).
const client = new Client({ name: "darkroom-outside-check", version: "1.0.0" }, { capabilities: { sampling: {} } });
let samplingImages = 0;
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  const msgs = req.params.messages;
  samplingImages += msgs.filter((m) => m.content.type === "image" && m.content.data.length > 0).length;
  const question = msgs[msgs.length - 1].content.text ?? "";
  const text = question.includes("main subject")
    ? '{"original_subject": "a cup of coffee", "augmented_subject": "a cup of coffee"}'
    : '{"visible": true, "confidence": 4, "changes_seen": "cropped and brighter"}';
  return { model: "outside-fixture", role: "assistant", content: { type: "text", text } };
});
await client.connect(transport);

const { tools } = await client.listTools();
const called = new Map();

// call runs one tool and returns the envelope's data; want is "success" or an error
// code. The SDK has already checked structuredContent against the outputSchema.
async function call(name, args, want = "success") {
  const res = await client.callTool({ name, arguments: args });
  called.set(name, (called.get(name) ?? 0) + 1);
  const env = res.structuredContent;
  if (!env) throw new Error(`${name}: no structuredContent`);
  const text = (res.content ?? []).find((c) => c.type === "text");
  if (!text || !text.text) throw new Error(`${name}: no text content`);
  const got = env.success ? "success" : env.error.code;
  if (got !== want) {
    throw new Error(`${name} ${JSON.stringify(args)}: got ${got}, want ${want}: ${JSON.stringify(env.error)}`);
  }
  return env.data;
}

const img = "coffee";
const gradient = { kind: "gradient", start: [0.5, 0], end: [0.5, 0.6] };
const ellipse = { kind: "ellipse", center: [0.6, 0.4], radius_x: 0.2, radius_y: 0.15, rotation: 20, feather: 0.05 };
const rectangle = { kind: "rectangle", x: 0.1, y: 0.1, width: 0.3, height: 0.2 };
const polygon = { kind: "polygon", points: [[0.1, 0.9], [0.4, 0.5], [0.7, 0.9]], feather: 0.02 };

await call("get_contract", {});
await call("list_vocabulary", { layer: "L2" });
await call("list_available_transforms", { category: "blur" });
const masks = await call("list_masks_vocabulary", {});
if (!masks.masks.length) throw new Error("list_masks_vocabulary: no masks");
await call("ingest", { path: "coffee.png" });
await call("ingest", { path: "coffee.png", image_id: "coffee2" });
await call("tag", { image_id: img, name: "start" });
await call("apply_primitive", { image_id: img, primitive_name: "exposure", value: 0.4 });
await call("apply_primitive", { image_id: img, primitive_name: "exposure", value: -0.3, mask_spec: { shape: gradient } });
await call("apply_primitive", {
  image_id: img,
  primitive_name: "white_balance",
  value: { temperature: 400 },
  mask_spec: { shape: ellipse, ranges: [{ channel: "luminance", min: 0.2, max: 0.9 }] },
});
await call("apply_per_region", {
  image_id: img,
  primitive_name: "saturation",
  regions: [
    { mask_spec: { shape: polygon }, value: 0.2 },
    { mask_spec: { shape: rectangle, invert: true }, value: -0.1 },
    { mask_spec: { name: masks.masks[0].name }, value: 0.1 },
  ],
});
await call("apply_spot", { image_id: img, kind: "heal", x: 0.62, y: 0.31, radius: 0.015 });
await call("bind_layers", { image_id: img, l2_template: "golden_hour" });
const state = await call("get_state", { image_id: img });
const shapes = new Set(state.entries.map((e) => e.mask?.shape?.kind).filter(Boolean));
for (const k of ["gradient", "ellipse", "polygon", "rectangle"]) {
  if (!shapes.has(k)) throw new Error(`get_state: no ${k} mask in ${JSON.stringify(state.entries)}`);
}
await call("snapshot", { image_id: img, label: "masked" });
const d = await call("diff", { image_id: img, hash_a: "start", hash_b: "HEAD" });
if (!d.added.length) throw new Error("diff: nothing added since start");
await call("log", { image_id: img, limit: 5 });
await call("branch", { image_id: img, name: "moody", from: "start" });
await call("checkout", { image_id: img, ref_or_hash: "moody" });
await call("apply_primitive", { image_id: img, primitive_name: "vignette", value: { amount: -0.2 } });
await call("remove_module", { image_id: img, module_name: "vignette" });
await call("checkout", { image_id: img, ref_or_hash: "main" });
await call("compare", { image_id: img, hash_a: "main", hash_b: "moody", size: 128 });
await call("render_preview", { image_id: img, size: 256 });
await call("ingest", { path: "card.png", image_id: "card" });
await call("wb_from_gray_card", { image_id: "card", x: 0.5, y: 0.5 });
await call("propagate_state", { source_image_id: img, target_image_ids: ["coffee2"] });
await call("reset", { image_id: "coffee2" });
await call("log_vocabulary_gap", { image_id: img, description: "no way to warm only the cup" });
const notes = await call("propose_notes_update", { image_id: img, content: "The cup is already bright." });
await call("confirm_notes_update", { proposal_id: notes.proposal.proposal_id });
const taste = await call("propose_taste_update", { content: "Prefers warm tones." });
await call("confirm_taste_update", { proposal_id: taste.proposal.proposal_id });
await call("read_context", { image_id: img });
await call("export_final", { image_id: img, format: "jpeg", size: 256 });
// Error envelopes validate against the same outputSchema.
await call("get_state", { image_id: "nope" }, "not_found");
await call("diff", { image_id: img, hash_a: "start", hash_b: "no_such_ref" }, "not_found");
await call("apply_primitive", { image_id: img, primitive_name: "exposure", value: 99 }, "invalid_input");

// Augmentation: presets, a prompt read back, a session default seed, an augmentation
// of an edited image with boxes, its verification through this client's sampling, a
// folder of images.
await call("list_available_presets", {});
const vp = await call("validate_prompt", { prompt: "rotate between -10 and 10 degrees and add noise" });
if (!vp.valid || vp.parsed_transforms.length !== 2) throw new Error(`validate_prompt: ${JSON.stringify(vp)}`);
await call("set_default_seed", { seed: 5 });
const aug = await call("augment_image", {
  image_id: img,
  preset: "classification_light",
  count: 2,
  options: { return_images: 1 },
  annotations: { bboxes: { format: "coco", boxes: [[10, 10, 50, 40]], labels: ["cup"] } },
});
if (aug.seed_source !== "session_default" || aug.variants.length !== 2) throw new Error(`augment_image: ${JSON.stringify(aug)}`);
const v = await call("verify_augmentation", { session_id: aug.session_id, max_variants: 1 });
if (v.model !== "outside-fixture" || v.variants[0].label.label_changed !== false || samplingImages < 2) {
  throw new Error(`verify_augmentation: ${JSON.stringify(v)}, ${samplingImages} images sampled`);
}
await call("augment_dataset", { input: ".", output: "photos-aug", pipeline: [{ entry: "flip_horizontal" }], variants: 1 });

const missing = tools.map((t) => t.name).filter((n) => !called.has(n));
await client.close();
if (missing.length) {
  console.error(`tools never called: ${missing.join(", ")}`);
  process.exit(1);
}
process.stdout.write(
  JSON.stringify({ tools: tools.length, calls: [...called.values()].reduce((a, b) => a + b, 0), called: Object.fromEntries(called) }) + "\n",
);

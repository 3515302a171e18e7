// A thin OpenAI-compatible chat-completions server over llama.cpp (node-llama-cpp's prebuilt CPU
// build), for the real model tier in CI and `make demo-real`. It answers as llama.cpp's own
// llama-server does where the two could differ: its error bodies (503 "Loading model" while the
// model loads, 400 exceed_context_size_error), its `timings`, one choice per request, and its
// generic tool calling for chat templates without tools (a JSON schema grammar over
// {"tool_call": ...} | {"response": ...}). The prompt is the model's own chat template (read from
// the GGUF) rendered with the messages; usage counts the tokens the model really evaluated.
//
//   node server.mjs --model FILE [--host 127.0.0.1] [--port 0] [--slots 1] [--ctx-size 2048]
//                   [--threads 1] [--queue -1] [--model-id ID]
//
// Prints `READY http://HOST:PORT/v1` once it listens (before the model is loaded: requests until
// then get 503, as from llama-server). `--slots` requests generate at once, each in its own
// context sequence; up to `--queue` more wait (FIFO) and past that a request gets 429 with
// Retry-After (-1: no bound). A client that disconnects frees its slot at once.
import {createServer} from "node:http";
import {randomBytes} from "node:crypto";
import {basename} from "node:path";
import {parseArgs} from "node:util";
import {Template} from "@huggingface/jinja";
import {getLlama, getModuleVersion, LlamaGrammarEvaluationState, LlamaLogLevel} from "node-llama-cpp";

const {values: opt} = parseArgs({options: {
  model: {type: "string"}, host: {type: "string", default: "127.0.0.1"},
  port: {type: "string", default: "0"}, slots: {type: "string", default: "1"},
  "ctx-size": {type: "string", default: "2048"}, threads: {type: "string", default: "1"},
  queue: {type: "string", default: "-1"}, "model-id": {type: "string"},
}});
if (!opt.model) {
  console.error("usage: node server.mjs --model FILE.gguf [--port N] [--slots N] ...");
  process.exit(2);
}
const SLOTS = Number(opt.slots), N_CTX = Number(opt["ctx-size"]), QUEUE = Number(opt.queue);
const MODEL_ID = opt["model-id"] || basename(opt.model).replace(/\.gguf$/, "");

class RequestError extends Error {
  constructor(status, message, type = "invalid_request_error", extra = {}) {
    super(message);
    Object.assign(this, {status, type, extra});
  }
}

// busy: generating now; waited: requests that ever queued for a slot; refused: answered 429;
// aborted: the client hung up before its reply was written.
const stats = {busy: 0, max_busy: 0, waited: 0, max_queued: 0, served: 0, refused: 0,
               aborted: 0};
let engine = null;  // {model, context, template, fingerprint, free: [sequences]}
const waiting = [];  // resolvers of requests queued for a slot, oldest first

async function load() {
  const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
  const model = await llama.loadModel({modelPath: opt.model});
  const context = await model.createContext({contextSize: N_CTX, sequences: SLOTS,
                                             threads: Number(opt.threads)});
  const source = model.fileInfo.metadata.tokenizer?.chat_template;
  if (typeof source !== "string") throw new Error(`${opt.model} carries no chat template`);
  const free = Array.from({length: SLOTS}, () => context.getSequence());
  const fingerprint = `node-llama-cpp-${await getModuleVersion()}-${llama.buildType}`;
  engine = {model, context, template: new Template(source), fingerprint, free};
}

function acquire() {
  if (engine.free.length) return Promise.resolve(engine.free.pop());
  if (QUEUE >= 0 && waiting.length >= QUEUE) {
    stats.refused++;
    throw new RequestError(429, `server busy: ${SLOTS} slot(s) generating and ${waiting.length} `
                           + "request(s) queued", "rate_limit_error");
  }
  stats.waited++;
  return new Promise((resolve) => {
    waiting.push(resolve);
    stats.max_queued = Math.max(stats.max_queued, waiting.length);
  });
}

function release(sequence) {
  const next = waiting.shift();
  if (next) next(sequence); else engine.free.push(sequence);
}

function text(content, where) {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.filter((p) => p && p.type === "text").map((p) => String(p.text ?? "")).join("");
  }
  throw new RequestError(400, `${where}.content must be a string, null or a list of parts`);
}

// llama-server's generic tool format, for templates that know no tools: described in the system
// message, the reply constrained by a grammar to one tool call or a plain response.
function toolPrompt(tools) {
  const fns = tools.map((t) => t.function);
  return "You can call any of the following tools to satisfy the user's requests: "
    + JSON.stringify(fns, null, 2) + "\n\nExample tool call syntax:\n\n"
    + '{"tool_call": {"name": "tool_name", "arguments": {"arg1": "some_value"}}}\n\n'
    + 'To answer without a tool, reply with {"response": "your answer"}.';
}

// The grammar's JSON schema subset: object properties (all written, in order), strings,
// numbers, booleans, arrays, enums.
function grammarSchema(schema) {
  if (!schema || typeof schema !== "object") return {type: "string"};
  if (Array.isArray(schema.enum)) return {enum: schema.enum};
  switch (schema.type) {
    case "object": {
      const properties = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) properties[k] = grammarSchema(v);
      return {type: "object", properties};
    }
    case "array": return {type: "array", items: grammarSchema(schema.items)};
    case "integer": case "number": case "boolean": case "string": return {type: schema.type};
    default: return {type: "string"};
  }
}

function parseRequest(body) {
  if (!body || typeof body !== "object") throw new RequestError(400, "body is not a JSON object");
  if (!Array.isArray(body.messages) || !body.messages.length) {
    throw new RequestError(400, "'messages' must be a non-empty list");
  }
  if ((body.n ?? 1) !== 1) throw new RequestError(400, "Only one completion choice is allowed");
  const tools = body.tool_choice === "none" ? [] : (body.tools ?? []);
  if (!Array.isArray(tools) || tools.some((t) => typeof t?.function?.name !== "string")) {
    throw new RequestError(400, "'tools' must be a list of {type: function, function: {name}}");
  }
  const messages = body.messages.map((m, i) => {
    if (!m || typeof m.role !== "string") throw new RequestError(400, `messages[${i}] has no role`);
    let content = text(m.content, `messages[${i}]`);
    if (Array.isArray(m.tool_calls) && m.tool_calls.length) {  // as the grammar had it written
      const calls = m.tool_calls.map((c) => ({name: c.function?.name,
                                               arguments: jsonOr(c.function?.arguments)}));
      content = JSON.stringify({tool_call: calls[0]});
    }
    return {role: m.role, content};
  });
  if (tools.length) {
    if (messages[0].role === "system") messages[0].content += "\n\n" + toolPrompt(tools);
    else messages.unshift({role: "system", content: toolPrompt(tools)});
  }
  const max = body.max_completion_tokens ?? body.max_tokens;
  const stop = body.stop === undefined || body.stop === null ? []
    : Array.isArray(body.stop) ? body.stop.map(String) : [String(body.stop)];
  return {messages, tools, stop, stream: body.stream === true,
          includeUsage: body.stream_options?.include_usage === true,
          maxTokens: Number.isInteger(max) && max > 0 ? max : Infinity,
          temperature: typeof body.temperature === "number" ? body.temperature : 0.8,
          topP: typeof body.top_p === "number" ? body.top_p : undefined,
          seed: Number.isInteger(body.seed) ? body.seed >>> 0 : randomBytes(4).readUInt32LE()};
}

async function grammarFor(tools) {
  const call = {oneOf: tools.map((t) => ({type: "object", properties: {
    name: {const: t.function.name}, arguments: grammarSchema(t.function.parameters)}}))};
  const schema = {oneOf: [{type: "object", properties: {tool_call: call}},
                          {type: "object", properties: {response: {type: "string"}}}]};
  const grammar = await engine.model.llama.createGrammarForJsonSchema(schema);
  return new LlamaGrammarEvaluationState({model: engine.model, grammar});
}

// Generate one reply on `sequence`; `onText(piece)` gets the text as it grows (held back while
// the grammar's JSON is incomplete). Stops at an end-of-generation token, a stop string,
// max_tokens, the end of the context, the end of the grammar's JSON, or `signal`.
async function generate(sequence, req, tokens, signal, onText) {
  const {model} = engine;
  await sequence.clearHistory();  // no prompt cache: a reply never depends on the one before
  const grammar = req.tools.length ? await grammarFor(req.tools) : undefined;
  const started = performance.now();
  let firstAt = 0, finish = "length", out = [], emitted = 0, reply = "";
  const room = Math.min(req.maxTokens, N_CTX - tokens.length);
  const holdBack = Math.max(0, ...req.stop.map((s) => s.length - 1));
  if (room > 0) {
    finish = "stop";  // the generator ends by itself at an end-of-generation token
    for await (const token of sequence.evaluate(tokens, {
      temperature: req.temperature, seed: req.seed, topP: req.topP,
      grammarEvaluationState: grammar, contextShift: {size: 0}})) {
      if (!firstAt) firstAt = performance.now();
      if (signal.aborted) { finish = "aborted"; break; }
      out.push(token);
      reply = model.detokenize(out);
      const cut = req.stop.map((s) => reply.indexOf(s)).filter((i) => i >= 0);
      if (cut.length) { reply = reply.slice(0, Math.min(...cut)); finish = "stop"; break; }
      if (grammar && reply.trimEnd().endsWith("}") && complete(reply)) { finish = "stop"; break; }
      // An incomplete UTF-8 sequence detokenizes to U+FFFD: wait for its next token. The
      // tail that could begin a stop string is held back too.
      const safe = reply.length - holdBack;
      if (!grammar && !reply.endsWith("\uFFFD") && safe > emitted) {
        onText(reply.slice(emitted, safe));
        emitted = safe;
      }
      if (out.length >= room) { finish = "length"; break; }
    }
  }
  const ended = performance.now();
  firstAt = firstAt || ended;
  const timings = {prompt_n: tokens.length, prompt_ms: firstAt - started,
                   predicted_n: out.length, predicted_ms: ended - firstAt};
  timings.prompt_per_second = timings.prompt_n / (timings.prompt_ms / 1000 || 1e-9);
  timings.predicted_per_second = timings.predicted_n / (timings.predicted_ms / 1000 || 1e-9);
  return {reply, emitted, finish, completionTokens: out.length, timings};
}

// A tool call's arguments as the model wrote them: JSON text, which may not parse.
function jsonOr(text) {
  try { return JSON.parse(text || "{}"); } catch { return text; }
}

function complete(json) {
  try { JSON.parse(json); return true; } catch { return false; }
}

// The grammar's JSON as the API shapes it: a tool call, or the response as content.
function message(reply, req, finish) {
  if (!req.tools.length) return {message: {role: "assistant", content: reply}, finish};
  let parsed;
  try { parsed = JSON.parse(reply); } catch { return {message: {role: "assistant", content: reply}, finish}; }
  if (parsed.tool_call) {
    const call = {id: "call_" + randomBytes(12).toString("hex"), type: "function",
                  function: {name: parsed.tool_call.name,
                             arguments: JSON.stringify(parsed.tool_call.arguments ?? {})}};
    return {message: {role: "assistant", content: null, tool_calls: [call]}, finish: "tool_calls"};
  }
  return {message: {role: "assistant", content: String(parsed.response ?? "")}, finish};
}

async function chat(body, res, signal, queuedAt) {
  const req = parseRequest(body);
  const prompt = engine.template.render({messages: req.messages, add_generation_prompt: true,
                                         bos_token: "", eos_token: ""});
  const tokens = engine.model.tokenize(prompt, true);
  if (tokens.length >= N_CTX) {
    throw new RequestError(400, "the request exceeds the available context size, try increasing it",
                           "exceed_context_size_error", {n_prompt_tokens: tokens.length, n_ctx: N_CTX});
  }
  const sequence = await acquire();
  const queueMs = performance.now() - queuedAt;
  if (signal.aborted) { stats.aborted++; release(sequence); return; }  // gone while it queued
  stats.busy++;
  stats.max_busy = Math.max(stats.max_busy, stats.busy);
  const head = {id: "chatcmpl-" + randomBytes(12).toString("hex"), created: Math.floor(Date.now() / 1000),
                model: MODEL_ID, system_fingerprint: engine.fingerprint};
  const chunk = (choices, extra = {}) => `data: ${JSON.stringify({...head, object: "chat.completion.chunk", choices, ...extra})}\n\n`;
  let result;
  try {
    if (req.stream) {
      res.writeHead(200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"});
      res.write(chunk([{index: 0, delta: {role: "assistant", content: null}, finish_reason: null}]));
    }
    result = await generate(sequence, req, tokens, signal, (piece) => {
      if (req.stream) res.write(chunk([{index: 0, delta: {content: piece}, finish_reason: null}]));
    });
  } finally {
    stats.busy--;
    release(sequence);
  }
  if (result.finish === "aborted") { stats.aborted++; return; }
  stats.served++;
  const {message: msg, finish} = message(result.reply, req, result.finish);
  const usage = {prompt_tokens: tokens.length, completion_tokens: result.completionTokens,
                 total_tokens: tokens.length + result.completionTokens};
  const timings = {...result.timings, queue_ms: queueMs};
  if (!req.stream) {
    return send(res, 200, {...head, object: "chat.completion",
                           choices: [{index: 0, message: msg, finish_reason: finish}], usage, timings});
  }
  // What was held back: the grammar's reply whole (a tool call, or its response as content),
  // or the text's last piece.
  const rest = msg.tool_calls ? {tool_calls: msg.tool_calls.map((c, index) => ({index, ...c}))}
    : req.tools.length ? (msg.content ? {content: msg.content} : null)
    : result.reply.length > result.emitted ? {content: result.reply.slice(result.emitted)} : null;
  if (rest) res.write(chunk([{index: 0, delta: rest, finish_reason: null}]));
  res.write(chunk([{index: 0, delta: {}, finish_reason: finish}], {timings}));
  if (req.includeUsage) res.write(chunk([], {usage, timings}));
  res.end("data: [DONE]\n\n");
}

function send(res, status, body, headers = {}) {
  if (res.headersSent) { res.end(); return; }
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {"Content-Type": "application/json", "Content-Length": data.length, ...headers});
  res.end(data);
}

function fail(res, e) {
  if (e instanceof RequestError) {
    const headers = e.status === 429 ? {"Retry-After": "1"} : {};
    return send(res, e.status, {error: {code: e.status, message: e.message, type: e.type, ...e.extra}}, headers);
  }
  console.error(e);
  send(res, 500, {error: {code: 500, message: String(e?.message ?? e), type: "server_error"}});
}

const server = createServer((req, res) => {
  const queuedAt = performance.now();
  const path = req.url.split("?")[0];
  if (req.method === "GET" && path === "/health") {
    return engine ? send(res, 200, {status: "ok"})
      : send(res, 503, {error: {code: 503, message: "Loading model", type: "unavailable_error"}});
  }
  if (req.method === "GET" && path === "/stats") {
    return send(res, 200, {...stats, queued: waiting.length, slots: SLOTS, queue: QUEUE, n_ctx: N_CTX, loaded: !!engine});
  }
  if (req.method === "GET" && path === "/v1/models") {
    return send(res, 200, {object: "list", data: [{id: MODEL_ID, object: "model", owned_by: "llamacpp",
                                                   meta: {n_ctx: N_CTX, slots: SLOTS}}]});
  }
  if (req.method !== "POST" || path !== "/v1/chat/completions") {
    return send(res, 404, {error: {code: 404, message: "File Not Found", type: "not_found_error"}});
  }
  const parts = [];
  req.on("data", (d) => parts.push(d));
  req.on("end", async () => {
    if (!engine) {
      return send(res, 503, {error: {code: 503, message: "Loading model", type: "unavailable_error"}});
    }
    const abort = new AbortController();
    // The client went away before the reply was written: stop generating, free the slot.
    res.on("close", () => { if (!res.writableFinished) abort.abort(); });
    let body;
    try { body = JSON.parse(Buffer.concat(parts).toString("utf8")); }
    catch { return fail(res, new RequestError(400, "body is not valid JSON")); }
    try { await chat(body, res, abort.signal, queuedAt); } catch (e) { fail(res, e); }
  });
});

server.listen(Number(opt.port), opt.host, () => {
  const {address, port} = server.address();
  process.stdout.write(`READY http://${address}:${port}/v1\n`);
});
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
load().catch((e) => { console.error(`cannot load ${opt.model}: ${e.message}`); process.exit(1); });

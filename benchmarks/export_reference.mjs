#!/usr/bin/env node
// The reference implementation's own HTML export of one session file, for benchmarks/run_export.py.
//   node benchmarks/export_reference.mjs <session.jsonl> <out.html>
// Needs the oracle (see /work/shared/reference/oracle/README.md): set PI_PKG_DIR, or ORACLE_DIR (or
// PRIME_ORACLE_DIR) to a
// folder whose node_modules holds @mariozechner/pi-coding-agent. Timed as a whole process by the caller.
// The export works on a temporary copy: SessionManager.open may rewrite legacy files.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [src, out] = process.argv.slice(2);
if (!src || !out) {
	console.error("usage: node export_reference.mjs <session.jsonl> <out.html>");
	process.exit(2);
}
const oracle = process.env.ORACLE_DIR || process.env.PRIME_ORACLE_DIR || "/tmp/oracle";
const pkgDir =
	process.env.PI_PKG_DIR || path.join(oracle, "node_modules", "@mariozechner", "pi-coding-agent");
const mod = await import(pathToFileURL(path.join(pkgDir, "dist", "core", "export-html", "index.js")).href);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ref-export-"));
const copy = path.join(tmp, path.basename(src));
fs.copyFileSync(src, copy);
try {
	await mod.exportFromFile(copy, { outputPath: path.resolve(out) });
} finally {
	fs.rmSync(tmp, { recursive: true, force: true });
}

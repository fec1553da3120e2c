#!/usr/bin/env node
// The reference implementation's own HTML export of one session file, for benchmarks/run_export.py and
// benchmarks/export_vs_pi.py.
//   node benchmarks/export_reference.mjs <session.jsonl> <out.html>
// Needs the oracle (see /work/shared/reference/oracle/README.md): set PI_PKG_DIR, or ORACLE_DIR (or
// PRIME_ORACLE_DIR) to a folder whose node_modules holds the reference. PI_REF chooses which one, as
// for the oracle's own scripts: unset or "0.73" -> @mariozechner/pi-coding-agent 0.73.1, "latest" ->
// @earendil-works/pi-coding-agent 1.6.0. Timed as a whole process by the caller.
// SessionManager.open may rewrite a legacy (version 1 or 2) file, so such a file is exported from a
// temporary copy; a version 3 file (the benchmark's) is exported in place, as pi itself would, so the
// reference's time holds no copy of ours.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [src, out] = process.argv.slice(2);
if (!src || !out) {
	console.error("usage: node export_reference.mjs <session.jsonl> <out.html>");
	process.exit(2);
}
const PACKAGES = { "0.73": "@mariozechner/pi-coding-agent", latest: "@earendil-works/pi-coding-agent" };
const ref = process.env.PI_REF || "0.73";
if (!PACKAGES[ref]) {
	console.error(`PI_REF=${ref} is not one of: ${Object.keys(PACKAGES).join(", ")}`);
	process.exit(2);
}
const oracle = process.env.ORACLE_DIR || process.env.PRIME_ORACLE_DIR || "/tmp/oracle";
const pkgDir = process.env.PI_PKG_DIR || path.join(oracle, "node_modules", ...PACKAGES[ref].split("/"));
const mod = await import(pathToFileURL(path.join(pkgDir, "dist", "core", "export-html", "index.js")).href);

function isVersion3(file) {
	const fd = fs.openSync(file, "r");
	try {
		const buf = Buffer.alloc(4096);
		const n = fs.readSync(fd, buf, 0, buf.length, 0);
		const first = buf.subarray(0, n).toString("utf8").split("\n", 1)[0];
		return JSON.parse(first).version === 3;
	} catch {
		return false;
	} finally {
		fs.closeSync(fd);
	}
}

if (isVersion3(src)) {
	await mod.exportFromFile(src, { outputPath: path.resolve(out) });
} else {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ref-export-"));
	const copy = path.join(tmp, path.basename(src));
	fs.copyFileSync(src, copy);
	try {
		await mod.exportFromFile(copy, { outputPath: path.resolve(out) });
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}
